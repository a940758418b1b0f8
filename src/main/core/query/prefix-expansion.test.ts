import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../index/database.js';
import { addDocs, addSource } from './index-fixture.js';
import { MAX_PREFIX_WORDS, prefixExpander } from './prefix-expansion.js';
import { search, type SearchContext } from './search.js';

const WORDS = [
  'berserk',
  'bers',
  'berlin',
  'bert',
  'running',
  'runs',
  'runway',
  'relational',
  'café',
  'cafeteria',
];

let dir: string;
let db: Db;
const ctx: SearchContext = { acl: { mode: 'all' } };
const names = (query: string): string[] =>
  search(db, { query, limit: 100 }, ctx)
    .hits.map((h) => h.title ?? '')
    .sort();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-prefix-'));
  db = openDatabase(dir);
  const source = addSource(db);
  addDocs(
    db,
    WORDS.map((w, i) => ({ sourceId: source, path: `/p/${i}.txt`, title: w, text: `${w} zzfiller` })),
  );
  // Many words under one prefix: more than the expansion spells out.
  addDocs(
    db,
    Array.from({ length: MAX_PREFIX_WORDS + 5 }, (_, i) => ({
      sourceId: source,
      path: `/q/${i}.txt`,
      title: `qqword${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
      text: 'zzfiller',
    })),
  );
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('prefix queries on the stemmed index', () => {
  it('match words that start with what was typed, not words of its stem', () => {
    // FTS5 alone stems the prefix: bers* became ber* (berlin, bert).
    expect(names('bers*')).toEqual(['bers', 'berserk']);
    expect(names('ber*')).toEqual(['berlin', 'bers', 'berserk', 'bert']);
  });

  it('find words indexed under a stem shorter than the prefix', () => {
    // running is indexed as `run`: FTS5 alone found nothing for runn*.
    expect(names('runn*')).toContain('running');
    expect(names('relatio*')).toEqual(['relational']);
  });

  it('fold case and diacritics as the index does, in fields and with other terms', () => {
    expect(names('CAFÉ*')).toEqual(['cafeteria', 'café']);
    expect(names('title:bers*')).toEqual(['bers', 'berserk']);
    expect(names('bers* -berserk')).toEqual(['bers']);
  });

  it('writes the prefix as an FTS5 prefix query on the exact stem, plus the shorter stems', () => {
    const expand = prefixExpander(db);
    // "bers" alone is stemmed to ber: the prefix is written with a spelling that stays bers.
    const bers = expand('bers')!;
    expect(bers).toHaveLength(2);
    expect(bers[0]).toMatch(/^"bers[a-z]*"\*$/);
    expect(bers[1]).toBe('"ber"'); // the word bers itself is indexed as ber
    expect(expand('qqword')).toEqual(['"qqword"*']);
    expect(names('qqword*')).toHaveLength(MAX_PREFIX_WORDS + 5);
    expect(expand('two words')).toBeNull();
    expect(expand('企业')).toBeNull();
  });
});
