import { pathToFileURL } from 'node:url';
import { BUILTIN_FILTERS } from './builtin-filters.js';
import { FilterError, type Filter, type FilterInput, type FilterOutput } from './filter.js';
import { FILTER_TABLE, type FilterSpec } from './filter-table.js';
import { normalizeLine, normalizeText } from './text-normalization.js';

/**
 * What the runner and `extractInProcess` share: the filter library (built-ins plus extra filter
 * modules), the size cap, error wrapping and output normalisation.
 */

/**
 * A filter supplied as a module (tests, plug-ins): `spec` joins the table ahead of the built-ins;
 * `module` (absolute path or `file:` URL, `.ts` allowed) exports `filter: Filter` with `id === spec.id`.
 */
export interface ExtraFilter {
  spec: FilterSpec;
  module: string;
}

/** The table with extra filters first (so they can claim extensions/MIME types). */
export function tableWith(extra: readonly ExtraFilter[] = []): FilterSpec[] {
  return [...extra.map((e) => e.spec), ...FILTER_TABLE];
}

function moduleUrl(module: string): string {
  return /^file:/i.test(module) ? module : pathToFileURL(module).href;
}

/** Resolves filter ids to implementations, loading each module once. */
export class FilterLibrary {
  private readonly loaded = new Map<string, Promise<Filter>>();
  private readonly extra: Map<string, string>;

  constructor(extra: readonly ExtraFilter[] = []) {
    this.extra = new Map(extra.map((e) => [e.spec.id, e.module]));
  }

  /** The filter for `id`; rejects with `FilterError('unsupported')` for an unknown id. */
  load(id: string): Promise<Filter> {
    let filter = this.loaded.get(id);
    if (!filter) {
      filter = this.resolve(id);
      this.loaded.set(id, filter);
      filter.catch(() => this.loaded.delete(id));
    }
    return filter;
  }

  private async resolve(id: string): Promise<Filter> {
    const module = this.extra.get(id);
    if (module !== undefined) {
      const mod = (await import(moduleUrl(module))) as { filter?: Filter; default?: Filter };
      const filter = mod.filter ?? mod.default;
      if (!filter || typeof filter.extract !== 'function')
        throw new FilterError('unsupported', `filter module ${module} exports no filter`);
      return filter;
    }
    const loader = BUILTIN_FILTERS[id];
    if (!loader) throw new FilterError('unsupported', `no filter implements "${id}"`);
    return loader();
  }
}

/**
 * Throws `FilterError('too-large')` for an input over the spec's cap, or for one that is only the
 * head of a larger item when the spec's filter reads whole files (no `headBytes`).
 */
export function fitInput(spec: FilterSpec, input: FilterInput): FilterInput {
  if (input.bytes.length > spec.maxBytes) {
    throw new FilterError(
      'too-large',
      `${input.bytes.length} bytes exceed the ${spec.id} filter's ${spec.maxBytes}-byte cap; indexed by metadata only`,
    );
  }
  if (input.partial && spec.headBytes === undefined) {
    throw new FilterError(
      'too-large',
      `only the first ${input.bytes.length} bytes were read, and the ${spec.id} filter needs the whole file; indexed by metadata only`,
    );
  }
  return input;
}

/** Any failure as a `FilterError` with a readable message. */
export function asFilterError(err: unknown, filterId: string): FilterError {
  if (err instanceof FilterError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new FilterError(
    'corrupt',
    `${filterId} filter failed: ${message.replace(/\s+/g, ' ').trim() || 'unknown error'}`,
  );
}

/**
 * Runs one filter on one input: size cap (or head cut, {@link fitInput}), then `extract`, then normalised text and properties.
 * Rejects only with `FilterError`.
 */
export async function runFilter(filter: Filter, spec: FilterSpec, input: FilterInput): Promise<FilterOutput> {
  try {
    return normalizeOutput(await filter.extract(fitInput(spec, input)), spec.id);
  } catch (err) {
    throw asFilterError(err, spec.id);
  }
}

/**
 * {@link runFilter} for a filter with `extractSync`, on the calling thread: the same caps and
 * normalisation, so it yields exactly the output the crawl indexed. Throws only `FilterError`.
 */
export function runFilterSync(filter: Filter, spec: FilterSpec, input: FilterInput): FilterOutput {
  try {
    const fitted = fitInput(spec, input);
    if (!filter.extractSync)
      throw new FilterError('unsupported', `the ${spec.id} filter has no synchronous form`);
    return normalizeOutput(filter.extractSync(fitted), spec.id);
  } catch (err) {
    throw asFilterError(err, spec.id);
  }
}

/** A filter's raw output with normalised text and properties, stamped with the filter's id. */
function normalizeOutput(out: FilterOutput, filterId: string): FilterOutput {
  const result: FilterOutput = { text: normalizeText(out.text ?? ''), mime: out.mime, filter: filterId };
  const title = normalizeLine(out.title);
  const author = normalizeLine(out.author);
  const description = normalizeLine(out.description);
  const keywords = normalizeLine(out.keywords);
  if (title) result.title = title;
  if (author) result.author = author;
  if (description) result.description = description;
  if (keywords) result.keywords = keywords;
  if (out.links) result.links = out.links;
  if (out.embeds) result.embeds = out.embeds;
  if (out.encoding) result.encoding = out.encoding;
  return result;
}
