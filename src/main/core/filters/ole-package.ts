import iconv from 'iconv-lite';
import { FilterError, loadLibrary, unreadable } from './filter.js';
import type { DocumentProperties } from './office-package.js';
import { normalizeLine } from './text-normalization.js';

/**
 * OLE compound files (Office 97–2003 `.doc`, `.xls`, `.ppt`), read with SheetJS's `cfb`: named
 * streams, the summary properties, and the same refusal messages for every legacy format.
 */

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Whether `bytes` start like an OLE compound file. */
export function isOle(bytes: Uint8Array): boolean {
  return bytes.length >= 512 && OLE_MAGIC.every((b, i) => bytes[i] === b);
}

/** cfb loads on the first legacy Office file, not when a filter module loads. */
const loadCfb = () => loadLibrary('Office 97–2003 support', () => import('cfb'));

/** An opened compound file: named streams, and its summary properties. */
export interface OleFile {
  /** The first of `names` the file holds; throws `FilterError('corrupt')` when there is none. */
  get(names: readonly string[]): Buffer;
  /** Title, author, keywords and comments of `\x05SummaryInformation` ({} when absent or damaged). */
  properties(): DocumentProperties;
}

/**
 * Opens a compound file. Throws `FilterError('corrupt')` for what is not an OLE file (`label`
 * names the format in the message), and `'unsupported'` for an encrypted one (an
 * `EncryptedPackage` or `EncryptionInfo` stream).
 */
export async function oleStreams(bytes: Uint8Array, label: string): Promise<OleFile> {
  if (!isOle(bytes))
    throw new FilterError('corrupt', `unreadable ${label}: not an OLE compound file (Office 97–2003)`);
  const CFB = await loadCfb();
  let container: ReturnType<typeof CFB.read>;
  try {
    container = CFB.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: 'buffer' });
  } catch (err) {
    throw unreadable(label, err);
  }
  if (CFB.find(container, 'EncryptedPackage') || CFB.find(container, 'EncryptionInfo'))
    throw new FilterError('unsupported', `${label} is encrypted (password-protected)`);
  const stream = (name: string): Buffer | undefined => {
    const c = CFB.find(container, name)?.content as Uint8Array | number[] | undefined;
    if (!c) return undefined;
    return Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
  };
  return {
    get(names) {
      for (const name of names) {
        const s = stream(name);
        if (s) return s;
      }
      throw new FilterError('corrupt', `unreadable ${label}: no ${names[0]} stream`);
    },
    properties() {
      const s = stream('\u0005SummaryInformation');
      if (!s) return {};
      try {
        return summaryProperties(s);
      } catch {
        return {}; // properties are optional: a damaged set costs only them
      }
    },
  };
}

const PID_CODEPAGE = 1;
const PID_TITLE = 2;
const PID_SUBJECT = 3;
const PID_AUTHOR = 4;
const PID_KEYWORDS = 5;
const PID_COMMENTS = 6;
const VT_I2 = 2;
const VT_LPSTR = 0x1e;
const VT_LPWSTR = 0x1f;

/** The string properties of a SummaryInformation property set stream (MS-OLEPS 2.21). */
function summaryProperties(s: Buffer): DocumentProperties {
  const setOffset = s.readUInt32LE(44); // the first FMTID/offset pair follows the 28-byte header
  const count = s.readUInt32LE(setOffset + 4);
  const at = new Map<number, number>();
  for (let i = 0; i < Math.min(count, 256); i++) {
    const entry = setOffset + 8 + i * 8;
    at.set(s.readUInt32LE(entry), setOffset + s.readUInt32LE(entry + 4));
  }
  let codepage = 'cp1252';
  const cpAt = at.get(PID_CODEPAGE);
  if (cpAt !== undefined && s.readUInt32LE(cpAt) === VT_I2) {
    const cp = s.readUInt16LE(cpAt + 4);
    if (cp === 65001) codepage = 'utf-8';
    else if (cp !== 1200 && iconv.encodingExists(`cp${cp}`)) codepage = `cp${cp}`;
  }
  const text = (pid: number): string | undefined => {
    const p = at.get(pid);
    if (p === undefined || p + 8 > s.length) return undefined;
    const type = s.readUInt32LE(p);
    const n = s.readUInt32LE(p + 4);
    const end = (width: number) => Math.min(s.length, p + 8 + n * width);
    if (type === VT_LPSTR) return iconv.decode(s.subarray(p + 8, end(1)), codepage).replace(/\0+$/, '');
    if (type === VT_LPWSTR) return s.toString('utf16le', p + 8, end(2)).replace(/\0+$/, '');
    return undefined;
  };
  return {
    title: normalizeLine(text(PID_TITLE)),
    author: normalizeLine(text(PID_AUTHOR)),
    keywords: normalizeLine(text(PID_KEYWORDS)),
    description: normalizeLine(text(PID_COMMENTS)) ?? normalizeLine(text(PID_SUBJECT)),
  };
}
