/**
 * Filters turn a document's bytes into text and properties. Every filter is a pure function of its
 * input so it can run in a worker thread under a time cap.
 */

/** What a filter receives. */
export interface FilterInput {
  bytes: Uint8Array;
  /** Base name of the item (for extension-based decisions and titles). */
  name: string;
  /** Lowercase extension without the dot, '' if none. */
  ext: string;
  /** MIME type from the protocol (HTTP Content-Type) when known, without parameters. */
  mime?: string;
  /** Charset from the protocol (HTTP Content-Type parameter) when known. */
  charset?: string;
  /** The item's URL; base for resolving relative links. */
  url: string;
  /**
   * The caller keeps no copy of the text where `canLeaveTextAtSource` allows it
   * (`text-at-source.ts`): a filter worker then does not compress it for storage.
   */
  textAtSource?: boolean;
  /**
   * `bytes` is only the head of a larger item (see `FilterSpec.headBytes`): the rest was not read.
   * A filter that needs the rest throws `FilterError('needs-whole')`.
   */
  partial?: boolean;
}

/** What a filter produces. */
export interface FilterOutput {
  /** Extracted body text (plain). */
  text: string;
  title?: string;
  author?: string;
  description?: string;
  keywords?: string;
  /** Absolute outlinks (HTML); resolved against `<base href>` or the item URL. */
  links?: string[];
  /** Links that are embeds (frames/iframes) rather than navigations, for hop paths. */
  embeds?: string[];
  /** MIME type the filter decided on. */
  mime: string;
  /** Character encoding the text was decoded from, when the filter decoded text. */
  encoding?: string;
  /**
   * `text` already compressed for storage (`encodeBody`), when a filter worker did it off the
   * main thread; the index writer then stores these bytes instead of compressing again.
   */
  bodyZ?: Uint8Array;
  /** Id of the filter that produced this output (set by the runner). */
  filter?: string;
}

/** A filter implementation. `extract` throws `FilterError` on bad input. */
export interface Filter {
  readonly id: string;
  extract(input: FilterInput): Promise<FilterOutput>;
  /**
   * The same extraction, synchronously, for filters cheap enough to run again at query time (the
   * index keeps no copy of such a local file's text: see `text-at-source.ts`). Must give exactly
   * what `extract` gives for the same input.
   */
  extractSync?(input: FilterInput): FilterOutput;
}

/** A filter failure: the item is marked failed with `message` as the reason; the crawl goes on. */
export class FilterError extends Error {
  constructor(
    readonly code: 'corrupt' | 'timeout' | 'too-large' | 'unsupported' | 'crashed' | 'needs-whole',
    message: string,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

/**
 * Loads a filter's library on first use (not when the filter module loads); a library that
 * cannot load fails the item as unsupported, naming `what` (`"DOCX support"`).
 */
export async function loadLibrary<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new FilterError('unsupported', `${what} unavailable: ${(err as Error)?.message ?? String(err)}`);
  }
}

/**
 * The FilterError for a format library that failed on an item: its own message, or — when it
 * tripped over damaged input with a TypeError or RangeError ("Cannot read properties of
 * undefined") — what that means, so the crawl log reads as a sentence.
 */
export function unreadable(label: string, err: unknown): FilterError {
  if (err instanceof FilterError) return err;
  const internal = err instanceof TypeError || err instanceof RangeError;
  const why = internal ? 'damaged or truncated file' : ((err as Error)?.message ?? String(err));
  return new FilterError('corrupt', `unreadable ${label}: ${why}`);
}
