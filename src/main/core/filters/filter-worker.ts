import { parentPort, workerData } from 'node:worker_threads';
import { BUILTIN_FILTERS } from './builtin-filters.js';
import { encodeBody, MAX_BODY_CHARS } from '../index/body-codec.js';
import { asFilterError, FilterLibrary, runFilter } from './filter-execution.js';
import { canLeaveTextAtSource } from './text-at-source.js';
import type { FilterJobMessage, FilterWorkerData, FilterWorkerMessage } from './filter-worker-protocol.js';

/**
 * A filter worker thread: loads every filter module up front (so none needs the TypeScript loader
 * later), then runs one job at a time and answers each with `done` or `failed`.
 */

const data = workerData as FilterWorkerData;
const library = new FilterLibrary(data.extraFilters);
await Promise.all(
  [...Object.keys(BUILTIN_FILTERS), ...data.extraFilters.map((e) => e.spec.id)].map((id) => library.load(id)),
);

/** Starts answering jobs; called by the bootstrap once loading is done. */
export function start(): void {
  const port = parentPort;
  if (!port) throw new Error('filter-worker.ts must run in a worker thread');
  port.on('message', async (job: FilterJobMessage) => {
    let reply: FilterWorkerMessage;
    const transfer: ArrayBuffer[] = [];
    try {
      const filter = await library.load(job.spec.id);
      const output = await runFilter(filter, job.spec, job.input);
      const leftAtSource =
        job.input.textAtSource === true && canLeaveTextAtSource(output.filter, job.input.bytes.length);
      if (output.text && output.text.length <= MAX_BODY_CHARS && !leftAtSource) {
        // Compress here, not on the main thread (which also writes the index); own buffer, transferred.
        output.bodyZ = new Uint8Array(encodeBody(output.text));
        transfer.push(output.bodyZ.buffer as ArrayBuffer);
      }
      reply = { type: 'done', id: job.id, output };
    } catch (err) {
      const e = asFilterError(err, job.spec.id);
      reply = { type: 'failed', id: job.id, code: e.code, message: e.message };
    }
    port.postMessage(reply, transfer);
  });
  port.postMessage({ type: 'ready' } satisfies FilterWorkerMessage);
}
