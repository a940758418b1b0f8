import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { DEFAULT_WEIGHTS } from './default-weights.js';
import { addDocs, addSource } from './index-fixture.js';
import { weightsSql } from './rank-sql.js';
import { TermTopsRefresher } from './term-tops-refresher.js';
import { TERM_TOPS_MIN_DOCS, termTopFor } from './term-tops.js';

const rank = weightsSql(DEFAULT_WEIGHTS);
const until = async (cond: () => boolean, ms = 10_000): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
};

describe('TermTopsRefresher', () => {
  const dirs: string[] = [];
  const dbs: Db[] = [];
  afterEach(() => {
    for (const db of dbs.splice(0)) db.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function index(): Db {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-ttr-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    dbs.push(db);
    const source = addSource(db);
    addDocs(
      db,
      Array.from({ length: TERM_TOPS_MIN_DOCS + 50 }, (_, i) => ({
        sourceId: source,
        path: `/d/${i}.txt`,
        title: `note ${i}`,
        text: `zqcommon ${'filler '.repeat(i % 7)} item${i}`,
      })),
    );
    return db;
  }

  it('builds the rows a while after the index changed, waits while a crawl writes, and never serves a stale row', async () => {
    const db = index();
    let busy = false;
    const r = new TermTopsRefresher(db, () => busy, 50);
    expect(termTopFor(db, '"zqcommon"', rank)).toBeNull();
    r.schedule();
    expect(await until(() => termTopFor(db, '"zqcommon"', rank) !== null)).toBe(true);
    expect(termTopFor(db, '"zqcommon"', rank)!.total).toBe(TERM_TOPS_MIN_DOCS + 50);

    // The index changes while a crawl is running: the old row is no longer served, and no refresh
    // runs until the crawl is over.
    busy = true;
    addDocs(db, [{ sourceId: 1, path: '/d/new.txt', text: 'zqcommon again' }]);
    expect(termTopFor(db, '"zqcommon"', rank)).toBeNull();
    r.schedule();
    await new Promise((res) => setTimeout(res, 300));
    expect(termTopFor(db, '"zqcommon"', rank)).toBeNull();
    busy = false;
    expect(await until(() => termTopFor(db, '"zqcommon"', rank) !== null)).toBe(true);
    expect(termTopFor(db, '"zqcommon"', rank)!.total).toBe(TERM_TOPS_MIN_DOCS + 51);
    await r.close();
  });

  it('answers inside a clean read snapshot, never inside a transaction with pending writes', async () => {
    const db = index();
    await new TermTopsRefresher(db, () => false, 60_000).refreshNow();
    const inSnapshot = db.transaction(() => termTopFor(db, '"zqcommon"', rank, { cleanSnapshot: true }));
    expect(inSnapshot.deferred()?.total).toBe(TERM_TOPS_MIN_DOCS + 50);
    // A writer's open transaction: FTS5 may hold the new row in memory, its structure unchanged.
    db.exec('BEGIN IMMEDIATE');
    try {
      addDocs(db, [{ sourceId: 1, path: '/d/pending.txt', text: 'zqcommon pending' }]);
      expect(termTopFor(db, '"zqcommon"', rank)).toBeNull();
      const n = db.prepare("SELECT count(*) AS n FROM fts WHERE fts MATCH 'zqcommon'").get() as { n: number };
      expect(n.n).toBe(TERM_TOPS_MIN_DOCS + 51);
    } finally {
      db.exec('ROLLBACK');
    }
  });

  it('refreshes on demand, and close() leaves no timer behind', async () => {
    const db = index();
    const r = new TermTopsRefresher(db, () => false, 60_000);
    r.schedule();
    const result = await r.refreshNow();
    expect(result.done).toBe(true);
    expect(result.built).toBeGreaterThan(0);
    expect(termTopFor(db, '"zqcommon"', rank)).not.toBeNull();
    await r.close();
    addDocs(db, [{ sourceId: 1, path: '/d/late.txt', text: 'zqcommon late' }]);
    r.schedule(); // closed: ignored
    await new Promise((res) => setTimeout(res, 100));
    expect(termTopFor(db, '"zqcommon"', rank)).toBeNull();
  });
});
