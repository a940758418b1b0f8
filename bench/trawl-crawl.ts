// Child process of the benchmark: one crawl of the corpus, reporting duration, counts and peak RSS
// as one JSON line (a separate process so peak RSS is the crawl's own). For experiments,
// TRAWL_FILTER_WORKERS and TRAWL_PARALLEL override the filter workers and the items in flight.
import { createEngine } from '../src/main/core/engine.js';

const [dataDir, root, mode] = process.argv.slice(2);
const env = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const service = await createEngine({ dataDir, filterWorkers: env('TRAWL_FILTER_WORKERS') });
if (service.listSources().length === 0) {
  const parallelism = env('TRAWL_PARALLEL');
  service.addSource({ startAddresses: [root], settings: parallelism ? { parallelism } : {} });
}
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const [rec] = await service.crawl({ mode: mode === 'full' ? 'full' : 'incremental' });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
await service.close();
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, counts: rec.counts, status: rec.status, error: rec.error, maxRssKb: process.resourceUsage().maxRSS })}\n`,
);
