/**
 * Test and benchmark helper: writes documents into a real index exactly as the index writer does
 * (documents row with the compressed body, then the FTS row with the same column transforms), so
 * query tests and the ranking evaluation exercise the real on-disk format without a crawl.
 */
import type { Db } from '../index/database.js';
import { encodeBody } from '../index/body-codec.js';
import { toIndexText } from '../index/cjk.js';
import { urlTerms } from '../index/url-terms.js';

/** A document to insert; omitted properties take neutral defaults. */
export interface FixtureDoc {
  sourceId?: number;
  url?: string;
  path?: string;
  name?: string;
  title?: string | null;
  description?: string | null;
  keywords?: string | null;
  author?: string | null;
  mime?: string | null;
  ext?: string;
  size?: number;
  mtime?: number;
  ctime?: number;
  status?: 'ok' | 'metadata' | 'failed';
  aclId?: number | null;
  text?: string;
}

/** Insert a minimal `sources` row (for the foreign key) and return its id. */
export function addSource(db: Db, name = 'test', id?: number): number {
  const info = db
    .prepare(
      `INSERT INTO sources (id, name, kind, start_addresses, display_addresses, rules, settings, created_at)
       VALUES (?, ?, 'file', '[]', '[]', '[]', '{}', 0)`,
    )
    .run(id ?? null, name);
  return Number(info.lastInsertRowid);
}

/** Insert an ACL row (descriptor content is irrelevant to queries) and return its id. */
export function addAcl(db: Db, hash: string): number {
  return Number(
    db.prepare('INSERT INTO acls (hash, descriptor) VALUES (?, ?)').run(hash, '{"entries":[]}')
      .lastInsertRowid,
  );
}

let counter = 0;

/** Insert one document and its full-text row; returns the document id. */
export function addDoc(db: Db, doc: FixtureDoc): number {
  const n = ++counter;
  const path = doc.path ?? `/fixture/doc-${n}.txt`;
  const name = doc.name ?? path.split(/[\\/]/).pop() ?? `doc-${n}.txt`;
  const ext = doc.ext ?? (/\.([^.]+)$/.exec(name)?.[1] ?? '').toLowerCase();
  const url = doc.url ?? `file://${path}`;
  const text = doc.text ?? '';
  const info = db
    .prepare(
      `INSERT INTO documents (source_id, url, path, name, title, description, keywords, author, mime, ext, size,
         mtime, ctime, crawl_time, status, acl_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      doc.sourceId ?? 1,
      url,
      path,
      name,
      doc.title ?? null,
      doc.description ?? null,
      doc.keywords ?? null,
      doc.author ?? null,
      doc.mime ?? 'text/plain',
      ext,
      doc.size ?? text.length,
      doc.mtime ?? 0,
      doc.ctime ?? doc.mtime ?? 0,
      Date.now(),
      doc.status ?? 'ok',
      doc.aclId ?? null,
    );
  const id = Number(info.lastInsertRowid);
  if (text) db.prepare('INSERT INTO bodies (id, body_z) VALUES (?, ?)').run(id, encodeBody(text));
  const titleTerms = doc.title || name.replace(/\.[^.]+$/, '');
  db.prepare(
    'INSERT INTO fts (rowid, title, keywords, description, url, body) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(
    id,
    toIndexText(titleTerms),
    toIndexText(doc.keywords ?? ''),
    toIndexText(doc.description ?? ''),
    toIndexText(urlTerms(path || url)),
    toIndexText(text),
  );
  return id;
}

/** Insert many documents in one transaction; returns their ids in order. */
export function addDocs(db: Db, docs: readonly FixtureDoc[]): number[] {
  return db.transaction(() => docs.map((d) => addDoc(db, d)))();
}
