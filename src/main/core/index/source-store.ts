import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { Db } from './database.js';
import { DEFAULT_WEIGHTS } from '../query/default-weights.js';
import type { ContentSource, CrawlRule, NewContentSource, SourceKind, SourceSettings } from '../model.js';

/** Settings a new source gets for every field its creator leaves out. */
export function defaultSettings(kind: SourceKind): SourceSettings {
  return {
    maxFileSize: 64 * 1024 * 1024,
    followSymlinks: false,
    includeHidden: false,
    allowTypes: [],
    denyTypes: [],
    defaultExcludes: true,
    parallelism: 0,
    weights: { ...DEFAULT_WEIGHTS },
    schedule:
      kind === 'http'
        ? { incrementalMinutes: 24 * 60, fullDays: 7 }
        : { incrementalMinutes: 60, fullDays: 7 },
  };
}

/** Thrown for invalid source definitions; `message` is shown to the user as is. */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/**
 * Turn what a user typed as a start address into `{ url, display, kind }`: absolute paths, `~/…`,
 * `file://` URLs, `http(s)://` URLs, `smb://host/share/…` and `\\host\share\…` (UNC) are accepted.
 * Relative paths resolve against `cwd`. Throws SourceError for anything else.
 */
export function normalizeAddress(
  input: string,
  cwd = process.cwd(),
): { url: string; display: string; kind: SourceKind } {
  const raw = input.trim();
  if (!raw) throw new SourceError('a start address is empty');
  if (/^https?:\/\//i.test(raw)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new SourceError(`not a valid URL: ${raw}`);
    }
    u.hash = '';
    return { url: u.href, display: raw, kind: 'http' };
  }
  if (/^smb:\/\//i.test(raw) || /^\\\\[^\\]/.test(raw)) {
    const rest = raw.startsWith('\\\\') ? raw.slice(2).replace(/\\/g, '/') : raw.replace(/^smb:\/\//i, '');
    const parts = rest.split('/').filter(Boolean);
    if (parts.length < 2) throw new SourceError(`an SMB address needs a server and a share: ${raw}`);
    const [host, ...pathParts] = parts;
    const url = `smb://${host.toLowerCase()}/${pathParts.map((p) => encodeURIComponent(safeDecode(p))).join('/')}`;
    return { url, display: raw, kind: 'smb' };
  }
  if (/^file:\/\//i.test(raw)) {
    let p: string;
    try {
      p = fileURLToPath(raw);
    } catch {
      throw new SourceError(`not a valid file URL: ${raw}`);
    }
    return { url: pathToFileURL(p).href, display: p, kind: 'file' };
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(raw)) throw new SourceError(`unsupported address scheme: ${raw}`);
  const expanded = raw === '~' || raw.startsWith('~/') ? path.join(os.homedir(), raw.slice(1)) : raw;
  const abs = path.resolve(cwd, expanded);
  const display = abs.length > 1 ? abs.replace(/[\\/]+$/, '') : abs;
  return { url: pathToFileURL(display).href, display, kind: 'file' };
}

/** `%xx` sequences of an already-encoded URL segment decoded once (so they are not encoded twice). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function validateRules(rules: CrawlRule[]): CrawlRule[] {
  return rules.map((r) => {
    if (r.action !== 'include' && r.action !== 'exclude')
      throw new SourceError(`rule action must be include or exclude`);
    if (!['glob', 'regex', 'prefix'].includes(r.syntax))
      throw new SourceError(`rule syntax must be glob, regex or prefix`);
    if (!r.pattern) throw new SourceError('a rule pattern is empty');
    if (r.syntax === 'regex') {
      try {
        new RegExp(r.pattern);
      } catch (e) {
        throw new SourceError(`invalid regular expression ${r.pattern}: ${(e as Error).message}`);
      }
    }
    return { ...r };
  });
}

interface SourceRow {
  id: number;
  name: string;
  kind: string;
  start_addresses: string;
  display_addresses: string;
  rules: string;
  settings: string;
  paused: number;
  created_at: number;
}

function fromRow(r: SourceRow): ContentSource {
  const kind = r.kind as SourceKind;
  return {
    id: r.id,
    name: r.name,
    kind,
    startAddresses: JSON.parse(r.start_addresses),
    displayAddresses: JSON.parse(r.display_addresses),
    rules: JSON.parse(r.rules),
    settings: { ...defaultSettings(kind), ...JSON.parse(r.settings) },
    paused: !!r.paused,
    createdAt: r.created_at,
  };
}

/** Content sources persisted in the index database. */
export class SourceStore {
  constructor(private readonly db: Db) {}

  list(): ContentSource[] {
    return (this.db.prepare('SELECT * FROM sources ORDER BY id').all() as SourceRow[]).map(fromRow);
  }

  get(id: number): ContentSource | null {
    const r = this.db.prepare('SELECT * FROM sources WHERE id = ?').get(id) as SourceRow | undefined;
    return r ? fromRow(r) : null;
  }

  /** Find by id (number or numeric string) or exact name. */
  find(idOrName: string | number): ContentSource | null {
    if (typeof idOrName === 'number' || /^\d+$/.test(idOrName)) return this.get(Number(idOrName));
    const r = this.db.prepare('SELECT * FROM sources WHERE name = ?').get(idOrName) as SourceRow | undefined;
    return r ? fromRow(r) : null;
  }

  /** Create a source. All start addresses must be of one kind. Throws SourceError when invalid. */
  add(input: NewContentSource): ContentSource {
    if (!input.startAddresses?.length) throw new SourceError('a source needs at least one start address');
    const norm = input.startAddresses.map((a) => normalizeAddress(a));
    const kind = input.kind ?? norm[0].kind;
    if (norm.some((n) => n.kind !== kind))
      throw new SourceError(`all start addresses of a ${kind} source must be ${kind} addresses`);
    const rules = validateRules(input.rules ?? []);
    const settings = { ...defaultSettings(kind), ...(input.settings ?? {}) };
    const name = input.name?.trim() || defaultName(norm[0].display, kind);
    const info = this.db
      .prepare(
        `INSERT INTO sources (name, kind, start_addresses, display_addresses, rules, settings, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        name,
        kind,
        JSON.stringify(norm.map((n) => n.url)),
        JSON.stringify(norm.map((n) => n.display)),
        JSON.stringify(rules),
        JSON.stringify(settings),
        Date.now(),
      );
    return this.get(Number(info.lastInsertRowid))!;
  }

  /** Update fields of a source; returns the new state. Throws SourceError when unknown or invalid. */
  update(id: number, patch: Partial<NewContentSource> & { paused?: boolean }): ContentSource {
    const cur = this.get(id);
    if (!cur) throw new SourceError(`no source with id ${id}`);
    let urls = cur.startAddresses;
    let displays = cur.displayAddresses;
    if (patch.startAddresses) {
      const norm = patch.startAddresses.map((a) => normalizeAddress(a));
      if (norm.some((n) => n.kind !== cur.kind))
        throw new SourceError(`start addresses must stay ${cur.kind} addresses`);
      urls = norm.map((n) => n.url);
      displays = norm.map((n) => n.display);
    }
    const rules = patch.rules ? validateRules(patch.rules) : cur.rules;
    const settings = patch.settings ? { ...cur.settings, ...patch.settings } : cur.settings;
    this.db
      .prepare(
        `UPDATE sources SET name = ?, start_addresses = ?, display_addresses = ?, rules = ?, settings = ?, paused = ? WHERE id = ?`,
      )
      .run(
        patch.name?.trim() || cur.name,
        JSON.stringify(urls),
        JSON.stringify(displays),
        JSON.stringify(rules),
        JSON.stringify(settings),
        (patch.paused ?? cur.paused) ? 1 : 0,
        id,
      );
    return this.get(id)!;
  }

  /** Remove a source and everything indexed from it. */
  remove(id: number): boolean {
    const tx = this.db.transaction(() => {
      this.db
        .prepare('DELETE FROM fts WHERE rowid IN (SELECT id FROM documents WHERE source_id = ?)')
        .run(id);
      this.db.prepare('DELETE FROM documents WHERE source_id = ?').run(id);
      return this.db.prepare('DELETE FROM sources WHERE id = ?').run(id).changes > 0;
    });
    return tx();
  }
}

function defaultName(display: string, kind: SourceKind): string {
  if (kind === 'http') {
    try {
      return new URL(display).host;
    } catch {
      return display;
    }
  }
  const parts = display.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? display;
}
