// Entry of a filter worker thread. The engine ships as TypeScript run through tsx (no build step),
// and a worker thread does not inherit the parent's loader: when handed a .ts entry, register tsx,
// load the worker module (which loads every filter module), then unregister tsx so the large
// third-party libraries the filters import later (pdf.js, mammoth) load at native speed.
import { workerData } from 'node:worker_threads';

const { entry } = workerData;
let unregister;
if (/\.[cm]?ts$/.test(new URL(entry).pathname)) {
  const { register } = await import('tsx/esm/api');
  unregister = register();
}
const worker = await import(entry);
if (unregister) await unregister();
worker.start();
