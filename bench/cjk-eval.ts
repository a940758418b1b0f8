/**
 * CJK indexing: recall and index size of three ways to make Chinese/Japanese text searchable in
 * FTS5, on real text (the Chinese and Japanese translations in the machine's gettext catalogs,
 * /usr/share/locale/{zh_CN,zh_TW,ja}/LC_MESSAGES/*.mo):
 *
 * - bigrams (Trawl's choice, src/main/core/index/cjk.ts; queries compiled by the query compiler),
 * - word segmentation with Intl.Segmenter at index and query time,
 * - FTS5's trigram tokenizer.
 *
 * Queries are substrings of the documents (1–6 characters, the substring queries users type);
 * ground truth is plain substring search over the same documents. `run()` returns the figures;
 * `node bin/run-ts.mjs bench/cjk-eval.ts` prints them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { rng } from './corpus.js';
import { toIndexText } from '../src/main/core/index/cjk.js';
import { compileQuery } from '../src/main/core/query/query-compiler.js';
import { parseQuery } from '../src/main/core/query/query-parser.js';

/** Translated strings of a GNU gettext `.mo` file. */
export function moStrings(buf: Buffer): string[] {
  if (buf.length < 28) return [];
  const magic = buf.readUInt32LE(0);
  const le = magic === 0x950412de;
  if (!le && buf.readUInt32BE(0) !== 0x950412de) return [];
  const u32 = (o: number): number => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const n = u32(8);
  const tOff = u32(16);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = u32(tOff + i * 8);
    const off = u32(tOff + i * 8 + 4);
    if (off + len > buf.length) break;
    const s = buf.toString('utf8', off, off + len);
    if (i === 0 && s.includes('Content-Type:')) continue; // the catalog header
    out.push(...s.split('\0'));
  }
  return out;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+/gu;

interface Doc {
  lang: 'zh' | 'ja';
  text: string;
}

function loadCorpus(maxDocsPerLang: number): Doc[] {
  const docs: Doc[] = [];
  for (const [locale, lang] of [
    ['zh_CN', 'zh'],
    ['zh_TW', 'zh'],
    ['ja', 'ja'],
  ] as const) {
    const dir = `/usr/share/locale/${locale}/LC_MESSAGES`;
    if (!fs.existsSync(dir)) continue;
    let count = 0;
    for (const f of fs.readdirSync(dir).sort()) {
      if (!f.endsWith('.mo')) continue;
      const strings = moStrings(fs.readFileSync(path.join(dir, f))).filter((s) => /\p{Script=Han}/u.test(s));
      // One document per 40 messages of a catalog: a few KB, like a short text file.
      for (let i = 0; i < strings.length && count < maxDocsPerLang; i += 40, count++) {
        docs.push({ lang, text: strings.slice(i, i + 40).join('\n') });
      }
    }
  }
  return docs;
}

const segmenters = {
  zh: new Intl.Segmenter('zh', { granularity: 'word' }),
  ja: new Intl.Segmenter('ja', { granularity: 'word' }),
};

function segment(text: string, lang: 'zh' | 'ja'): string {
  const words: string[] = [];
  for (const s of segmenters[lang].segment(text)) if (s.isWordLike) words.push(s.segment);
  return words.join(' ');
}

function ftsBytes(db: Database.Database, table: string): number {
  const row = db.prepare(`SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE ?`).get(`${table}_%`) as {
    b: number;
  };
  return row.b;
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

export async function run(): Promise<Record<string, number | string>> {
  const docs = loadCorpus(Number(process.env.CJK_DOCS_PER_LANG ?? 1500));
  if (docs.length === 0) return { error: 'no zh/ja gettext catalogs on this machine' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-cjk-'));
  const db = new Database(path.join(dir, 'cjk.sqlite'));
  try {
    const tok = `tokenize = 'porter unicode61 remove_diacritics 2'`;
    db.exec(`
      CREATE VIRTUAL TABLE bi USING fts5(body, content = '', contentless_delete = 1, ${tok});
      CREATE VIRTUAL TABLE seg USING fts5(body, content = '', contentless_delete = 1, ${tok});
      CREATE VIRTUAL TABLE tri USING fts5(body, content = '', contentless_delete = 1, tokenize = 'trigram');
    `);
    const ins = {
      bi: db.prepare('INSERT INTO bi (rowid, body) VALUES (?, ?)'),
      seg: db.prepare('INSERT INTO seg (rowid, body) VALUES (?, ?)'),
      tri: db.prepare('INSERT INTO tri (rowid, body) VALUES (?, ?)'),
    };
    db.transaction(() => {
      docs.forEach((d, i) => {
        ins.bi.run(i + 1, toIndexText(d.text));
        ins.seg.run(i + 1, segment(d.text, d.lang));
        ins.tri.run(i + 1, d.text);
      });
    })();
    for (const t of ['bi', 'seg', 'tri']) db.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`);
    const textBytes = docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0);

    // Substring queries of 1–6 characters from random CJK runs.
    const r = rng(2024);
    const queries: { q: string; lang: 'zh' | 'ja'; len: number }[] = [];
    for (const len of [1, 2, 3, 4, 6]) {
      let made = 0;
      for (let tries = 0; made < 150 && tries < 20_000; tries++) {
        const d = docs[Math.floor(r() * docs.length)];
        const runs = d.text.match(CJK_RUN)?.filter((x) => Array.from(x).length >= len) ?? [];
        if (runs.length === 0) continue;
        const chars = Array.from(runs[Math.floor(r() * runs.length)]);
        const at = Math.floor(r() * (chars.length - len + 1));
        queries.push({ q: chars.slice(at, at + len).join(''), lang: d.lang, len });
        made++;
      }
    }
    const st = {
      bi: db.prepare('SELECT rowid FROM bi WHERE bi MATCH ?').pluck(),
      seg: db.prepare('SELECT rowid FROM seg WHERE seg MATCH ?').pluck(),
      tri: db.prepare('SELECT rowid FROM tri WHERE tri MATCH ?').pluck(),
    };
    const stats = new Map<string, { found: number; relevant: number; retrieved: number; correct: number }>();
    const add = (key: string, got: Set<number>, truth: Set<number>): void => {
      const s = stats.get(key) ?? { found: 0, relevant: 0, retrieved: 0, correct: 0 };
      s.relevant += truth.size;
      s.retrieved += got.size;
      for (const id of got) if (truth.has(id)) s.correct++;
      stats.set(key, s);
    };
    for (const { q, lang, len } of queries) {
      const truth = new Set<number>();
      docs.forEach((d, i) => {
        if (d.text.includes(q)) truth.add(i + 1);
      });
      const bigramMatch = compileQuery(parseQuery(q)!, { now: 0 }).match!;
      const segWords = segment(q, lang);
      const methods: Record<string, string | null> = {
        bigrams: bigramMatch,
        segmenter: segWords ? quote(segWords) : null,
        trigram: Array.from(q).length >= 3 ? quote(q) : null,
      };
      for (const [m, expr] of Object.entries(methods)) {
        const table = m === 'bigrams' ? 'bi' : m === 'segmenter' ? 'seg' : 'tri';
        const got = new Set<number>(expr ? (st[table as 'bi'].all(expr) as number[]) : []);
        add(`${m} ${len}`, got, truth);
      }
    }
    const out: Record<string, number | string> = {
      documents: docs.length,
      'corpus text MB': Number((textBytes / 1e6).toFixed(2)),
      'queries (150 per length)': queries.length,
    };
    for (const m of ['bigrams', 'segmenter', 'trigram']) {
      const table = m === 'bigrams' ? 'bi' : m === 'segmenter' ? 'seg' : 'tri';
      out[`${m}: index size / text size`] = Number((ftsBytes(db, table) / textBytes).toFixed(2));
      for (const len of [1, 2, 3, 4, 6]) {
        const s = stats.get(`${m} ${len}`)!;
        const recall = s.relevant ? s.correct / s.relevant : 0;
        const precision = s.retrieved ? s.correct / s.retrieved : 1;
        out[`${m}: recall / precision, ${len}-char queries`] =
          `${recall.toFixed(3)} / ${precision.toFixed(3)}`;
      }
    }
    return out;
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const res = await run();
  for (const [k, v] of Object.entries(res)) console.log(`${k.padEnd(48)} ${v}`);
}
