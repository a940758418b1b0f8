// Run by watch-fallback.test.ts inside a user namespace whose inotify watch limit is small: other
// programs' watches (argv[4] files watched with fs.watch) use most of it, then the background
// runner starts on argv[2]; prints the source's live status as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { TrawlService } from '../../src/main/core/service.js';
import { startBackground } from '../../src/main/core/live/background.js';

const [root, dataDir, otherDir] = process.argv.slice(2);
const others = fs.readdirSync(otherDir).map((f) => fs.watch(path.join(otherDir, f)));
const service = await TrawlService.open({ dataDir, filterWorkers: 1 });
service.addSource({ startAddresses: [root] });
await service.crawl({ mode: 'full' });
const bg = await startBackground(service, { schedule: false, priority: 'none', catchUp: false });
const t0 = Date.now();
while (bg.status().sources[0].state !== 'polling' && Date.now() - t0 < 10_000)
  await new Promise((r) => setTimeout(r, 50));
process.stdout.write(
  JSON.stringify({
    source: bg.status().sources[0],
    limit: bg.status().inotify.limit,
    root: path.basename(root),
  }),
);
await bg.stop();
for (const w of others) w.close();
await service.close();
