// Entry of a filter worker thread. The engine ships as TypeScript run through tsx (no build step),
// and a worker thread does not inherit the parent's loader: register tsx here when handed a .ts entry.
import { workerData } from 'node:worker_threads';

const { entry } = workerData;
if (/\.[cm]?ts$/.test(new URL(entry).pathname)) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(entry);
