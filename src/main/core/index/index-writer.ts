import crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Db } from './database.js';
import type { SecurityDescriptor } from '../model.js';
import { encodeBody, MAX_BODY_CHARS } from './body-codec.js';
import { toIndexText } from './cjk.js';
import { urlTerms } from './url-terms.js';

/** Everything the writer stores for one item. */
export interface DocumentInput {
  sourceId: number;
  url: string;
  path: string;
  name: string;
  ext: string;
  size: number;
  mtime: number;
  ctime: number;
  mime: string;
  title?: string | null;
  description?: string | null;
  keywords?: string | null;
  author?: string | null;
  text: string;
  /** `text` already compressed with `encodeBody` (by a filter worker); compressed here otherwise. */
  bodyZ?: Uint8Array | null;
  /**
   * Keep no copy of `text`: it is extracted again from the local file when shown
   * (`filters/text-at-source.ts`); `text` is still indexed.
   */
  textAtSource?: boolean;
  contentHash?: string | null;
  /** `undefined`/`null`: no descriptor, visible to everyone. */
  security?: SecurityDescriptor | null;
  securityKey?: string | null;
  /** `ok`: text extracted; `metadata`: indexed by name/properties only; `failed`: filter failed. */
  status: 'ok' | 'metadata' | 'failed';
  error?: string | null;
  etag?: string | null;
  lastModified?: string | null;
  outlinks?: string[] | null;
  hops?: string | null;
}

/** Options for {@link IndexWriter}. */
export interface WriterOptions {
  /** Commit after this many writes (default 400). */
  batchSize?: number;
  /** Commit when the open transaction is older than this (ms, default 250). */
  maxBatchMs?: number;
}

/**
 * Stores documents, their full-text entries and ACL references, batching writes in transactions.
 *
 * Contract: every write is part of the currently open transaction; `flush()` commits it. A document
 * row and its FTS entry are always written in the same transaction, so a crash (even `kill -9`)
 * leaves both or neither. Not thread-safe: one writer per database connection.
 */
export class IndexWriter {
  private inTx = false;
  private pending = 0;
  private txStarted = 0;
  private readonly batchSize: number;
  private readonly maxBatchMs: number;
  private readonly aclIds = new Map<string, number>();
  private readonly st: {
    insertDoc: Database.Statement;
    updateDoc: Database.Statement;
    insertFts: Database.Statement;
    putBody: Database.Statement;
    dropBody: Database.Statement;
    deleteFts: Database.Statement;
    deleteDoc: Database.Statement;
    findAcl: Database.Statement;
    insertAcl: Database.Statement;
    touch: Database.Statement;
  };

  constructor(
    private readonly db: Db,
    opts: WriterOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 400;
    this.maxBatchMs = opts.maxBatchMs ?? 250;
    const cols = `source_id, url, path, name, title, description, keywords, author, mime, ext, size, mtime, ctime,
      crawl_time, content_hash, acl_id, security_key, status, error, etag, last_modified, outlinks, hops, text_at_source`;
    this.st = {
      insertDoc: db.prepare(
        `INSERT INTO documents (${cols}) VALUES (${cols
          .split(',')
          .map(() => '?')
          .join(',')})`,
      ),
      updateDoc: db.prepare(
        `UPDATE documents SET (${cols}) = (${cols
          .split(',')
          .map(() => '?')
          .join(',')}) WHERE id = ?`,
      ),
      insertFts: db.prepare(
        'INSERT INTO fts (rowid, title, keywords, description, url, body) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      deleteFts: db.prepare('DELETE FROM fts WHERE rowid = ?'),
      putBody: db.prepare('INSERT OR REPLACE INTO bodies (id, body_z) VALUES (?, ?)'),
      dropBody: db.prepare('DELETE FROM bodies WHERE id = ?'),
      deleteDoc: db.prepare('DELETE FROM documents WHERE id = ?'),
      findAcl: db.prepare('SELECT id FROM acls WHERE hash = ?'),
      insertAcl: db.prepare('INSERT INTO acls (hash, descriptor) VALUES (?, ?)'),
      touch: db.prepare(
        'UPDATE documents SET mtime = ?, ctime = ?, size = ?, crawl_time = ?, security_key = ?, acl_id = ? WHERE id = ?',
      ),
    };
  }

  /** The id of a stored descriptor (created on first use); null for "no descriptor". */
  aclId(security: SecurityDescriptor | null | undefined): number | null {
    if (!security) return null;
    const canonical = JSON.stringify(
      [...security.entries].sort((a, b) => (a.type + a.principal).localeCompare(b.type + b.principal)),
    );
    const hash = crypto.createHash('sha1').update(canonical).digest('hex');
    const cached = this.aclIds.get(hash);
    if (cached !== undefined) return cached;
    this.begin();
    const row = this.st.findAcl.get(hash) as { id: number } | undefined;
    const id = row
      ? row.id
      : Number(
          this.st.insertAcl.run(hash, JSON.stringify({ entries: JSON.parse(canonical) })).lastInsertRowid,
        );
    this.aclIds.set(hash, id);
    return id;
  }

  /**
   * Insert or replace a document. `existingId` is the id of the item's current row when the caller
   * knows it (the crawl history); the row is updated in place so the id stays stable.
   * Returns the document id.
   */
  upsert(doc: DocumentInput, existingId?: number | null): number {
    this.begin();
    const text = doc.text.length > MAX_BODY_CHARS ? doc.text.slice(0, MAX_BODY_CHARS) : doc.text;
    const aclId = this.aclId(doc.security);
    const textAtSource = doc.textAtSource === true && text !== '' && text === doc.text;
    const values = [
      doc.sourceId,
      doc.url,
      doc.path,
      doc.name,
      doc.title ?? null,
      doc.description ?? null,
      doc.keywords ?? null,
      doc.author ?? null,
      doc.mime,
      doc.ext,
      doc.size,
      Math.trunc(doc.mtime),
      Math.trunc(doc.ctime),
      Date.now(),
      doc.contentHash ?? null,
      aclId,
      doc.securityKey ?? null,
      doc.status,
      doc.error ?? null,
      doc.etag ?? null,
      doc.lastModified ?? null,
      doc.outlinks ? JSON.stringify(doc.outlinks) : null,
      doc.hops ?? null,
      textAtSource ? 1 : 0,
    ];
    let id: number;
    if (existingId != null) {
      this.st.deleteFts.run(existingId);
      this.st.updateDoc.run(...values, existingId);
      id = existingId;
    } else {
      id = Number(this.st.insertDoc.run(...values).lastInsertRowid);
    }
    if (text && !textAtSource)
      this.st.putBody.run(id, doc.bodyZ && text === doc.text ? doc.bodyZ : encodeBody(text));
    else if (existingId != null) this.st.dropBody.run(id);
    const titleTerms = doc.title || doc.name.replace(/\.[^.]+$/, '');
    this.st.insertFts.run(
      id,
      toIndexText(titleTerms),
      toIndexText(doc.keywords ?? ''),
      toIndexText(doc.description ?? ''),
      toIndexText(urlTerms(doc.path || doc.url)),
      toIndexText(text),
    );
    this.tick();
    return id;
  }

  /**
   * Record that an unchanged item was seen again with new metadata that does not affect its text
   * (e.g. a permission change re-captured its descriptor).
   */
  touch(
    id: number,
    meta: {
      mtime: number;
      ctime: number;
      size: number;
      securityKey?: string | null;
      security?: SecurityDescriptor | null;
    },
  ): void {
    this.begin();
    this.st.touch.run(
      Math.trunc(meta.mtime),
      Math.trunc(meta.ctime),
      meta.size,
      Date.now(),
      meta.securityKey ?? null,
      this.aclId(meta.security),
      id,
    );
    this.tick();
  }

  /** Remove a document and its full-text entry. */
  delete(id: number): void {
    this.begin();
    this.st.deleteFts.run(id);
    this.st.deleteDoc.run(id);
    this.tick();
  }

  /** Commit the open transaction, if any. */
  flush(): void {
    if (!this.inTx) return;
    this.db.exec('COMMIT');
    this.inTx = false;
    this.pending = 0;
  }

  /** Roll back the open transaction (used when a crawl is stopped mid-batch). */
  rollback(): void {
    if (!this.inTx) return;
    this.db.exec('ROLLBACK');
    this.inTx = false;
    this.pending = 0;
    this.aclIds.clear();
  }

  private begin(): void {
    if (this.inTx) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.inTx = true;
    this.txStarted = Date.now();
  }

  private tick(): void {
    this.pending++;
    if (this.pending >= this.batchSize || Date.now() - this.txStarted >= this.maxBatchMs) this.flush();
  }
}
