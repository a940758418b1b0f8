// Child process of the benchmark: one crawl of the corpus, reporting duration, counts and peak RSS
// as one JSON line (a separate process so peak RSS is the crawl's own).
import { createEngine } from '../src/main/core/engine.js';

const [dataDir, root, mode] = process.argv.slice(2);
const service = await createEngine({ dataDir });
if (service.listSources().length === 0) service.addSource({ startAddresses: [root] });
const t0 = performance.now();
const [rec] = await service.crawl({ mode: mode === 'full' ? 'full' : 'incremental' });
const ms = performance.now() - t0;
await service.close();
process.stdout.write(
  `${JSON.stringify({ ms, counts: rec.counts, status: rec.status, error: rec.error, maxRssKb: process.resourceUsage().maxRSS })}\n`,
);
