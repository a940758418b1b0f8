import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { checkIntegrity, openDatabase } from '../../src/main/core/index/database.js';
import { makeService, tempDir, writeTree } from '../helpers/engine.js';

const FILES = 4000;
const root = tempDir('trawl-crash-src-');
const dataDir = tempDir('trawl-crash-data-');
writeTree(
  root,
  Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [
      `d${i % 40}/f${i}.txt`,
      `crashword document ${i} ${'filler '.repeat(200)}`,
    ]),
  ),
);

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('crash safety', () => {
  it('kill -9 during a crawl leaves a consistent index that the next crawl completes', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'crawl-child.ts'), dataDir, root],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // Kill it once it has committed a few hundred documents but is far from done (progress counts
    // documents written, not committed: the committed count is read from the index itself).
    let reader: Database.Database | null = null;
    const committed = (): number => {
      try {
        reader ??= new Database(path.join(dataDir, 'index.sqlite'), { readonly: true });
        return (reader.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
      } catch {
        return 0; // not created yet
      }
    };
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = [...buf.matchAll(/progress (\d+)/g)].pop();
        if (m && Number(m[1]) >= 300 && committed() >= 300) {
          child.kill('SIGKILL');
          resolve();
        }
        if (buf.includes('done')) reject(new Error('the crawl finished before it could be killed'));
      });
      child.on('exit', () => resolve());
    });
    (reader as Database.Database | null)?.close();
    await new Promise((r) => child.once('exit', r));
    expect(child.signalCode).toBe('SIGKILL');

    const db = openDatabase(dataDir);
    expect(checkIntegrity(db)).toEqual([]);
    const indexed = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    expect(indexed).toBeGreaterThan(0);
    expect(indexed).toBeLessThan(FILES);
    const ftsRows = (db.prepare('SELECT count(*) AS n FROM fts').get() as { n: number }).n;
    expect(ftsRows).toBe(indexed);
    db.close();

    const { service } = makeService(dataDir);
    try {
      const [rec] = await service.crawl({ mode: 'incremental' });
      expect(rec.status).toBe('done');
      expect(rec.counts.added).toBe(FILES - indexed);
      expect(service.search({ query: 'crashword', limit: 1 }).total).toBe(FILES);
      expect(service.crawls()[1]).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/interrupted/),
      });
      expect(checkIntegrity(service.db)).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
