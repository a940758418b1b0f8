import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { addAcl, addDoc, addSource } from './index-fixture.js';
import { suggest, type SearchContext } from './search.js';

let dir: string;
let db: Db;
let secretAcl: number;
let teamAcl: number;
const ALL: SearchContext = { acl: { mode: 'all' } };

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-suggest-'));
  db = openDatabase(dir);
  addSource(db, 's', 1);
  secretAcl = addAcl(db, 'secret');
  teamAcl = addAcl(db, 'team');
  addDoc(db, { title: 'Quarterly report 2024', keywords: 'finance', text: 'x' });
  addDoc(db, { title: 'Quarantine procedures', text: 'x' });
  addDoc(db, { title: 'Project Zephyrus acquisition', keywords: 'merger', text: 'x', aclId: secretAcl });
  addDoc(db, { title: 'Team offsite', description: 'Zeppelin museum visit', text: 'x', aclId: teamAcl });
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('suggest', () => {
  it('completes the last word and offers matching titles', () => {
    const s = suggest(db, 'quar', ALL);
    expect(s).toContain('quarterly');
    expect(s).toContain('quarantine');
    expect(s).toContain('Quarterly report 2024');
    expect(suggest(db, 'quarterly rep', ALL)).toContain('quarterly report');
  });

  it('tolerates typos', () => {
    expect(suggest(db, 'quartrly', ALL)).toContain('quarterly');
  });

  it('never suggests words that only occur in documents the caller cannot see', () => {
    const pub: SearchContext = { acl: { mode: 'ids', aclIds: [] } };
    const team: SearchContext = { acl: { mode: 'ids', aclIds: [teamAcl] } };
    expect(suggest(db, 'zep', ALL)).toEqual(expect.arrayContaining(['zephyrus', 'zeppelin']));
    expect(suggest(db, 'zep', pub)).toEqual([]);
    expect(suggest(db, 'zep', team)).toEqual(['zeppelin']);
    expect(suggest(db, 'project', team)).toEqual([]);
    expect(suggest(db, 'merger', team)).toEqual([]);
    expect(suggest(db, 'acquisition', { acl: { mode: 'ids', aclIds: [secretAcl] } })).toContain(
      'Project Zephyrus acquisition',
    );
  });

  it('sees new documents (the cached index is rebuilt on change)', () => {
    expect(suggest(db, 'xylo', ALL)).toEqual([]);
    addDoc(db, { title: 'Xylophone repair', text: 'x' });
    expect(suggest(db, 'xylo', ALL)).toContain('xylophone');
  });

  it('sees changes committed by another connection', () => {
    const other = openDatabase(dir);
    try {
      expect(suggest(db, 'vibra', ALL)).toEqual([]);
      addDoc(other, { title: 'Vibraphone lessons', text: 'x' });
      expect(suggest(db, 'vibra', ALL)).toContain('vibraphone');
    } finally {
      other.close();
    }
  });

  it('follows ACL changes, deletions and re-crawls at once', () => {
    const pub: SearchContext = { acl: { mode: 'ids', aclIds: [] } };
    const id = addDoc(db, { title: 'Walrus census', text: 'x' });
    expect(suggest(db, 'walr', pub)).toContain('walrus');
    // Access revoked (the writer's touch() sets a new crawl_time and acl_id).
    db.prepare('UPDATE documents SET acl_id = ?, crawl_time = crawl_time + 1 WHERE id = ?').run(
      secretAcl,
      id,
    );
    expect(suggest(db, 'walr', pub)).toEqual([]);
    expect(suggest(db, 'walr', { acl: { mode: 'ids', aclIds: [secretAcl] } })).toContain('walrus');
    // Re-crawled with a new title: the old words go, the new ones come.
    db.prepare(
      `UPDATE documents SET title = 'Narwhal census', acl_id = NULL, crawl_time = crawl_time + 1 WHERE id = ?`,
    ).run(id);
    expect(suggest(db, 'walr', ALL)).toEqual([]);
    expect(suggest(db, 'narw', pub)).toContain('narwhal');
    // Re-crawled in place with the same ACL: picked up when the caller's generation changes.
    db.prepare(`UPDATE documents SET title = 'Beluga census', crawl_time = crawl_time + 1 WHERE id = ?`).run(
      id,
    );
    expect(suggest(db, 'belu', { ...pub, generation: 1 })).toContain('beluga');
    expect(suggest(db, 'narw', { ...pub, generation: 1 })).toEqual([]);
    db.prepare('DELETE FROM fts WHERE rowid = ?').run(id);
    db.prepare('DELETE FROM documents WHERE id = ?').run(id);
    expect(suggest(db, 'belu', ALL)).toEqual([]);
    expect(suggest(db, 'narw', ALL)).toEqual([]);
    expect(suggest(db, 'census', ALL)).toEqual([]);
  });

  it('returns nothing for a blank prefix or limit 0, and respects the limit', () => {
    expect(suggest(db, '   ', ALL)).toEqual([]);
    expect(suggest(db, 'quar', ALL, 0)).toEqual([]);
    expect(suggest(db, 'q', ALL, 2)).toHaveLength(2);
  });
});
