import { parentPort, workerData } from 'node:worker_threads';
import { asFilterError, FilterLibrary, runFilter } from './filter-execution.js';
import type { FilterJobMessage, FilterWorkerData, FilterWorkerMessage } from './filter-worker-protocol.js';

/** A filter worker thread: runs one job at a time and answers each with `done` or `failed`. */

const port = parentPort;
if (!port) throw new Error('filter-worker.ts must run in a worker thread');
const data = workerData as FilterWorkerData;
const library = new FilterLibrary(data.extraFilters);

port.on('message', async (job: FilterJobMessage) => {
  let reply: FilterWorkerMessage;
  try {
    const filter = await library.load(job.spec.id);
    reply = { type: 'done', id: job.id, output: await runFilter(filter, job.spec, job.input) };
  } catch (err) {
    const e = asFilterError(err, job.spec.id);
    reply = { type: 'failed', id: job.id, code: e.code, message: e.message };
  }
  port.postMessage(reply);
});

port.postMessage({ type: 'ready' } satisfies FilterWorkerMessage);
