// Child process for the crash-safety test: crawls a folder and reports progress on stdout until
// it is killed.
import { createEngine } from '../../src/main/core/engine.js';

const [dataDir, root] = process.argv.slice(2);
const service = await createEngine({ dataDir, filterWorkers: 1 });
if (service.listSources().length === 0) service.addSource({ startAddresses: [root] });
service.on('progress', (p) => process.stdout.write(`progress ${p.counts.added}\n`));
const records = await service.crawl({ mode: 'full' });
process.stdout.write(`done ${JSON.stringify(records[0].counts)}\n`);
await service.close();
