/**
 * NTFS DACLs → descriptors: parsing SDDL (as `icacls /save` and `Get-Acl`'s `.Sddl` print it) and
 * the batched capture that runs one `icacls /save` per folder.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Principal, SecurityDescriptor } from '../model.js';
import type { FileSecurityCapture } from '../sources/file/file-handler.js';
import type { RankedAccessEntry } from './acl-eval.js';
import { NOBODY } from './posix-permissions.js';

/** Access-mask bits that let the holder read a file's data. */
const FILE_READ_DATA = 0x1;
const GENERIC_ALL = 0x10000000;
const GENERIC_READ = 0x80000000;
const READ_BITS = FILE_READ_DATA | GENERIC_ALL | GENERIC_READ;

/** SDDL right abbreviations → access-mask bits. */
const RIGHTS: Record<string, number> = {
  GA: GENERIC_ALL,
  GR: GENERIC_READ,
  GW: 0x40000000,
  GX: 0x20000000,
  FA: 0x1f01ff,
  FR: 0x120089,
  FW: 0x120116,
  FX: 0x1200a0,
  KA: 0xf003f,
  KR: 0x20019,
  KW: 0x20006,
  KX: 0x20019,
  CC: 0x1,
  DC: 0x2,
  LC: 0x4,
  SW: 0x8,
  RP: 0x10,
  WP: 0x20,
  DT: 0x40,
  LO: 0x80,
  CR: 0x100,
  SD: 0x10000,
  RC: 0x20000,
  WD: 0x40000,
  WO: 0x80000,
};

/** SDDL SID abbreviations for well-known SIDs. Domain-relative ones stay `sddl:XX`. */
const SIDS: Record<string, string> = {
  WD: 'S-1-1-0',
  CO: 'S-1-3-0',
  CG: 'S-1-3-1',
  OW: 'S-1-3-4',
  NU: 'S-1-5-2',
  IU: 'S-1-5-4',
  SU: 'S-1-5-6',
  AN: 'S-1-5-7',
  ED: 'S-1-5-9',
  PS: 'S-1-5-10',
  AU: 'S-1-5-11',
  RC: 'S-1-5-12',
  SY: 'S-1-5-18',
  LS: 'S-1-5-19',
  NS: 'S-1-5-20',
  BA: 'S-1-5-32-544',
  BU: 'S-1-5-32-545',
  BG: 'S-1-5-32-546',
  PU: 'S-1-5-32-547',
  AO: 'S-1-5-32-548',
  SO: 'S-1-5-32-549',
  PO: 'S-1-5-32-550',
  BO: 'S-1-5-32-551',
  RE: 'S-1-5-32-552',
  RU: 'S-1-5-32-554',
  RD: 'S-1-5-32-555',
  NO: 'S-1-5-32-556',
  MU: 'S-1-5-32-558',
  LU: 'S-1-5-32-559',
  IS: 'S-1-5-32-568',
  AC: 'S-1-15-2-1',
  OI: 'S-1-5-32-574',
};

/** A principal for an SDDL SID field: `everyone` for S-1-1-0, full SIDs as they are. */
export function sddlPrincipal(sid: string): Principal {
  const full = /^S-1-/i.test(sid) ? sid.toUpperCase() : (SIDS[sid] ?? `sddl:${sid}`);
  return full === 'S-1-1-0' ? 'everyone' : full;
}

function parseRights(s: string): number {
  if (/^0x[0-9a-f]+$/i.test(s)) return Number.parseInt(s.slice(2), 16) >>> 0;
  if (/^\d+$/.test(s)) return Number(s) >>> 0;
  let mask = 0;
  for (let i = 0; i + 1 < s.length; i += 2) mask |= RIGHTS[s.slice(i, i + 2)] ?? 0;
  return mask >>> 0;
}

/**
 * The read-access descriptor of an SDDL string's DACL, exact for Windows' in-order evaluation of a
 * read request: each ACE that allows or denies reading data becomes an entry ranked by its position
 * (the first applicable one decides). Inherit-only ACEs (they apply to children, not the object),
 * audit and label ACEs are skipped; object ACEs count like plain ones. A missing or `NO_ACCESS_CONTROL`
 * DACL gives `null` (everyone); an empty DACL gives a descriptor nobody passes.
 */
export function sddlToDescriptor(sddl: string): SecurityDescriptor | null {
  const d = /(?:^|[)A-Z0-9-])D:([^(]*)/.exec(sddl.trim());
  if (!d) return null;
  if (/NO_ACCESS_CONTROL/.test(d[1])) return null;
  const entries: RankedAccessEntry[] = [];
  let rank = 0;
  for (const ace of aceStrings(sddl.trim().slice(d.index + d[0].length))) {
    const f = ace.split(';');
    if (f.length < 6) continue;
    const [type, flags, rights] = f;
    const sid = f[5];
    if (!['A', 'D', 'OA', 'OD', 'XA', 'XD'].includes(type)) continue;
    // A callback (conditional) allow depends on claims this side cannot evaluate: it grants
    // nothing here (never a leak); a conditional deny is taken as a deny.
    if (type === 'XA') continue;
    if ((flags.match(/../g) ?? ([] as string[])).includes('IO')) continue;
    if ((parseRights(rights) & READ_BITS) === 0) continue;
    const principal = sddlPrincipal(sid);
    entries.push({ type: type.endsWith('D') ? 'deny' : 'allow', principal, ...(rank ? { rank } : {}) });
    rank++;
    if (principal === 'everyone') break;
  }
  if (entries.length === 0) return NOBODY;
  if (entries.length === 1 && entries[0].type === 'allow' && entries[0].principal === 'everyone') return null;
  // Without a deny the order is irrelevant: unranked entries compare equal across orders.
  if (!entries.some((e) => e.type === 'deny')) {
    return {
      entries: entries
        .map((e) => ({ type: e.type, principal: e.principal }))
        .sort((a, b) => (a.principal < b.principal ? -1 : 1)),
    };
  }
  return { entries };
}

/**
 * The ACE strings of a DACL body: `(…)(…)…` up to the next `S:` section, each without its outer
 * parentheses. Conditional ACEs carry a parenthesised expression (`(XA;;FR;;;WD;(@User.x == 1))`),
 * so nesting is counted rather than cut at the first `)`.
 */
function aceStrings(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"') quoted = false;
      continue;
    }
    if (c === '"' && depth > 0) quoted = true;
    else if (c === '(') {
      if (depth === 0) start = i + 1;
      depth++;
    } else if (c === ')' && depth > 0) {
      depth--;
      if (depth === 0) out.push(body.slice(start, i));
    } else if (depth === 0) break; // `S:` or anything else after the DACL's ACEs
  }
  return out;
}

/**
 * Parse the file `icacls <folder>\* /save <file>` writes (UTF-16LE, optionally with BOM): pairs of
 * lines, an item name relative to the folder, then its SDDL.
 */
export function parseIcaclsSave(data: Buffer | string): Map<string, string> {
  const text = typeof data === 'string' ? data : decodeUtf16(data);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const name = lines[i];
    if (!name) {
      i--;
      continue;
    }
    out.set(name, lines[i + 1]);
  }
  return out;
}

function decodeUtf16(buf: Buffer): string {
  const looksUtf16 = buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || buf[1] === 0);
  return looksUtf16 ? buf.toString('utf16le') : buf.toString('utf8');
}

/**
 * The Windows `FileSecurityCapture`: the item's DACL from one `icacls /save` per folder (cached
 * and reused while the item's change time, which an ACL change moves, predates the batch).
 * Folders above the item are not checked: Windows grants "bypass traverse checking" to everyone by
 * default.
 */
export class WindowsFileCapture implements FileSecurityCapture {
  private readonly batches = new Map<string, { startedAt: number; sddl: Promise<Map<string, string>> }>();

  constructor(private readonly slackMs = 50) {}

  key(_filePath: string, st: fs.Stats): string {
    return `${st.mode}.${st.ctimeMs}`;
  }

  async capture(filePath: string, st: fs.Stats): Promise<SecurityDescriptor | null> {
    const dir = path.dirname(filePath);
    let batch = this.batches.get(dir);
    if (!batch || st.ctimeMs >= batch.startedAt - this.slackMs) {
      if (this.batches.size > 10_000) this.batches.clear();
      batch = { startedAt: Date.now(), sddl: icaclsSave(path.join(dir, '*')) };
      this.batches.set(dir, batch);
    }
    const sddl = (await batch.sddl).get(path.basename(filePath));
    if (sddl === undefined) throw new Error(`${filePath}: icacls reported no security descriptor`);
    return sddlToDescriptor(sddl);
  }
}

/** Run `icacls <pattern> /save <tmp> /c /q` and parse what it saved. */
async function icaclsSave(pattern: string): Promise<Map<string, string>> {
  const tmp = path.join(await fs.promises.mkdtemp(path.join(os.tmpdir(), 'trawl-icacls-')), 'acl.txt');
  try {
    await new Promise<void>((resolve) => {
      execFile('icacls', [pattern, '/save', tmp, '/c', '/q'], { windowsHide: true, timeout: 60_000 }, () =>
        resolve(),
      );
    });
    return parseIcaclsSave(await fs.promises.readFile(tmp));
  } catch {
    return new Map();
  } finally {
    await fs.promises.rm(path.dirname(tmp), { recursive: true, force: true });
  }
}
