import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { FilterError, type FilterInput, type FilterOutput } from './filter.js';
import { fitInput, FilterLibrary, runFilter, tableWith, type ExtraFilter } from './filter-execution.js';
import { METADATA_FILTER_ID, pickFilter, SNIFF_BYTES, type FilterSpec } from './filter-table.js';
import type { FilterJobMessage, FilterWorkerData, FilterWorkerMessage } from './filter-worker-protocol.js';
import { metadataFilter } from './metadata-filter.js';

export type { ExtraFilter } from './filter-execution.js';

/** Options of `createFilterRunner`. */
export interface FilterRunnerOptions {
  /** Worker threads; default `max(1, availableParallelism() - 1)`. */
  workers?: number;
  /** When set, replaces every table entry's per-item time cap (ms). */
  maxMs?: number;
  /** Filters added ahead of the built-in table (tests, plug-ins). */
  extraFilters?: ExtraFilter[];
  /** V8 old-space cap per worker (MB); a filter that exceeds it fails as `crashed`. Default 1024. */
  maxHeapMb?: number;
}

/** Runs filters in worker threads under the table's time and size caps. */
export interface FilterRunner {
  /**
   * Filters one item. Resolves with normalised output, or rejects with `FilterError`:
   * `too-large` (over the spec's `maxBytes`; index metadata only), `timeout` (over the time cap;
   * the worker was killed and replaced), `crashed` (the worker died; replaced), `corrupt` /
   * `unsupported` (the filter refused the input). Metadata-only items never reach a worker.
   * The caller's `input.bytes` is copied once and left intact.
   */
  run(input: FilterInput): Promise<FilterOutput>;
  /** Terminates the workers; pending and later `run` calls reject with `FilterError('crashed')`. Idempotent. */
  close(): Promise<void>;
}

/** Time a worker may take to load its module before it counts as crashed. */
const BOOT_TIMEOUT_MS = 30_000;

const BOOTSTRAP = new URL('./filter-worker-bootstrap.mjs', import.meta.url);
const WORKER_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './filter-worker.ts' : './filter-worker.js',
  import.meta.url,
);

interface Job {
  id: number;
  spec: FilterSpec;
  input: FilterInput;
  capMs: number;
  resolve(output: FilterOutput): void;
  reject(error: FilterError): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  bootTimer?: NodeJS.Timeout;
}

/** Default worker count: all cores but one for the crawl and index writer, at least one. */
export function defaultFilterWorkers(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/**
 * Creates a pool of filter worker threads. Workers start on demand, run one item at a time, and
 * are unref'd while idle (an unclosed runner does not keep the process alive). Call `close()`.
 */
export function createFilterRunner(opts: FilterRunnerOptions = {}): FilterRunner {
  const maxWorkers = Math.max(1, opts.workers ?? defaultFilterWorkers());
  const extraFilters = opts.extraFilters ?? [];
  const table = tableWith(extraFilters);
  const workerData: FilterWorkerData = { entry: WORKER_ENTRY.href, extraFilters };
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 1024 },
      // The bootstrap sets up what the worker needs; the parent's loader flags would only slow it.
      execArgv: [],
    });
    const slot: Slot = { worker, ready: false };
    slot.bootTimer = setTimeout(
      () =>
        fail(slot, new FilterError('crashed', `filter worker did not start within ${BOOT_TIMEOUT_MS} ms`)),
      BOOT_TIMEOUT_MS,
    );
    slot.bootTimer.unref();
    worker.on('message', (msg: FilterWorkerMessage) => onMessage(slot, msg));
    worker.on('error', (err: Error) =>
      fail(slot, new FilterError('crashed', `filter worker crashed: ${err.message}`)),
    );
    worker.on('exit', (code) =>
      fail(slot, new FilterError('crashed', `filter worker exited with code ${code}`)),
    );
    slots.add(slot);
    return slot;
  }

  /** Retires a slot (idempotent): rejects its job, kills the worker, lets the queue move on. */
  function fail(slot: Slot, error: FilterError): void {
    if (!slots.delete(slot)) return;
    clearTimeout(slot.timer);
    clearTimeout(slot.bootTimer);
    const job = slot.job;
    slot.job = undefined;
    void slot.worker.terminate().catch(() => undefined);
    if (job) job.reject(error);
    pump();
  }

  function send(slot: Slot): void {
    const job = slot.job!;
    // One copy, sized to the content (a pooled Buffer's backing store may be far larger), then moved.
    const bytes = new Uint8Array(job.input.bytes);
    const message: FilterJobMessage = {
      type: 'job',
      id: job.id,
      spec: job.spec,
      input: { ...job.input, bytes },
    };
    slot.worker.postMessage(message, [bytes.buffer]);
    slot.timer = setTimeout(() => {
      fail(
        slot,
        new FilterError(
          'timeout',
          `${job.spec.id} filter exceeded its ${job.capMs} ms time cap on ${job.input.name}`,
        ),
      );
    }, job.capMs);
  }

  function onMessage(slot: Slot, msg: FilterWorkerMessage): void {
    if (!slots.has(slot)) return;
    if (msg.type === 'ready') {
      slot.ready = true;
      clearTimeout(slot.bootTimer);
      if (slot.job) send(slot);
      else slot.worker.unref();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if (msg.type === 'done') job.resolve(msg.output);
    else job.reject(new FilterError(msg.code, msg.message));
    pump();
    if (!slot.job) slot.worker.unref();
  }

  function pump(): void {
    while (queue.length > 0 && !closed) {
      let slot: Slot | undefined;
      for (const s of slots) {
        if (!s.job) {
          slot = s;
          break;
        }
      }
      if (!slot) {
        if (slots.size >= maxWorkers) return;
        slot = spawn();
      }
      slot.job = queue.shift()!;
      slot.worker.ref();
      if (slot.ready) send(slot);
    }
  }

  return {
    async run(input: FilterInput): Promise<FilterOutput> {
      if (closed) throw new FilterError('crashed', 'filter runner is closed');
      const spec = pickFilter(input.ext, input.mime, input.bytes.subarray(0, SNIFF_BYTES), table);
      const fitted = fitInput(spec, input);
      if (spec.id === METADATA_FILTER_ID) return runFilter(metadataFilter, spec, fitted);
      return new Promise<FilterOutput>((resolve, reject) => {
        queue.push({ id: nextId++, spec, input: fitted, capMs: opts.maxMs ?? spec.maxMs, resolve, reject });
        pump();
      });
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const error = new FilterError('crashed', 'filter runner was closed');
      for (const job of queue.splice(0)) job.reject(error);
      const workers: Worker[] = [];
      for (const slot of [...slots]) {
        workers.push(slot.worker);
        slots.delete(slot);
        clearTimeout(slot.timer);
        clearTimeout(slot.bootTimer);
        slot.job?.reject(error);
      }
      await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
    },
  };
}

let defaultLibrary: FilterLibrary | undefined;

/**
 * Filters one item in this thread with the same filter choice, size cap and normalisation as the
 * runner, but no time cap (a stuck filter cannot be interrupted here). For tests, benchmarks and
 * one-off extraction. Rejects only with `FilterError`.
 */
export async function extractInProcess(
  input: FilterInput,
  opts: { extraFilters?: ExtraFilter[] } = {},
): Promise<FilterOutput> {
  const extra = opts.extraFilters ?? [];
  const library = extra.length > 0 ? new FilterLibrary(extra) : (defaultLibrary ??= new FilterLibrary());
  const spec = pickFilter(input.ext, input.mime, input.bytes.subarray(0, SNIFF_BYTES), tableWith(extra));
  const filter = await library.load(spec.id);
  return runFilter(filter, spec, input);
}
