/**
 * Strict parsers for what Samba's `smbclient` prints in batch mode (run with `TZ=UTC`): listings
 * (`ls`, plain and with `showacls`, flat and `recurse ON`), and the outcome lines of `get`.
 * Anything the parsers do not recognise fails the command it belongs to; nothing is guessed.
 */
import { HandlerError } from '../handler.js';
import type { NtAce, NtDacl } from './nt-security.js';

/** One entry of a listing. */
export interface SmbEntry {
  name: string;
  /** smbclient's attribute letters (`D` folder, `H` hidden, `A` archive, `R` read-only, `N` normal…). */
  attrs: string;
  isDir: boolean;
  size: number;
  /** Modification time, ms since epoch (1-second resolution from smbclient). */
  mtimeMs: number;
  /** Change time when the back-end knows it (Windows); smbclient listings do not show it. */
  ctimeMs?: number;
  /** Only in `showacls` listings: the entry's DACL (`'unreadable'` when it could not be read). */
  dacl?: NtDacl;
  /** Only in `showacls` listings: the owner SID. */
  owner?: string;
}

/** What one listing command produced: its entries, or the NT status that ended it. */
export type ListingResult = { ok: true; entries: SmbEntry[] } | { ok: false; error: HandlerError };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ASCTIME =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/** Parse smbclient's asctime (`Sun Nov 29 21:43:13 2026`, printed in UTC under `TZ=UTC`) to ms. */
export function parseAsctime(s: string): number | null {
  const m = ASCTIME.exec(s);
  if (!m) return null;
  const ms = Date.UTC(
    Number(m[7]),
    MONTHS.indexOf(m[2]),
    Number(m[3].trim()),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
  );
  return Number.isFinite(ms) ? ms : null;
}

/** Attribute letters in the order smbclient's attrib_string() emits them; each at most once. */
const ATTR_ORDER = 'VDAHSNRdtsrcone';

function isAttrString(s: string): boolean {
  let last = -1;
  for (const ch of s) {
    const i = ATTR_ORDER.indexOf(ch);
    if (i <= last) return false;
    last = i;
  }
  return true;
}

/**
 * Parse one plain `ls` row, printed as `"  %-30s%7s %8.0f  %s"` (name padded to 30 *bytes*,
 * attributes right-aligned in 7, size, asctime). Read from the right so names with spaces,
 * brackets, leading dots or multi-byte characters come out exactly. Returns null when the row does
 * not have that shape. A name's own trailing spaces cannot be told from padding (Windows forbids
 * them; Samba mangles them).
 */
export function parseLsRow(line: string): SmbEntry | null {
  if (!line.startsWith('  ') || line.length < 2 + 1 + 7 + 1 + 8 + 2 + 24) return null;
  const mtimeMs = parseAsctime(line.slice(-24));
  if (mtimeMs === null || line.slice(-26, -24) !== '  ') return null;
  const body = line.slice(2, -26);
  const sm = /^(.*?[A-Za-z]) +(\d+)$/s.exec(body);
  if (!sm) return null;
  const head = sm[1];
  const size = Number(sm[2]);
  // `%8.0f` right-aligns the size in at least 8 columns after one space.
  if (body.length - head.length < 9) return null;
  let i = head.length;
  while (i > 0 && /[A-Za-z]/.test(head[i - 1]) && isAttrString(head.slice(i - 1))) i--;
  const attrs = head.slice(i);
  const fieldStart = head.length - Math.max(7, attrs.length);
  if (fieldStart < 0 || head.slice(fieldStart, i).trim() !== '') return null;
  const nameField = head.slice(0, fieldStart);
  const bytes = Buffer.byteLength(nameField);
  if (bytes < 30) return null;
  const name = bytes === 30 ? nameField.replace(/ +$/, '') : nameField;
  if (!name) return null;
  return { name, attrs, isDir: attrs.includes('D'), size, mtimeMs };
}

const BLOCKS_LINE = /^\t\t-?\d+ blocks of size \d+\. -?\d+ blocks available$/;
const DSKATTR_ERROR = /^Error in dskattr: /;
const LIST_ERROR = /^(NT_STATUS_[A-Z0-9_]+) listing (.*)$/;
const HELP_LINE = 'Try "help" to get a list of possible commands.';
const CONNECT_ERROR =
  /^(?:session setup failed: |tree connect failed: |protocol negotiation failed: |do_connect: Connection to .* failed \(Error |Connection to .* failed \(Error |Protocol negotiation to server .* failed: )(NT_STATUS_[A-Z0-9_]+)/;

/** Map an NT status to the handler's error code. */
export function ntStatusError(status: string, message: string): HandlerError {
  return new HandlerError(ntStatusCode(status), message);
}

/** The handler error code for an NT status. */
export function ntStatusCode(status: string): HandlerError['code'] {
  switch (status) {
    case 'NT_STATUS_ACCESS_DENIED':
    case 'NT_STATUS_NETWORK_ACCESS_DENIED':
    case 'NT_STATUS_PRIVILEGE_NOT_HELD':
      return 'access-denied';
    case 'NT_STATUS_LOGON_FAILURE':
    case 'NT_STATUS_WRONG_PASSWORD':
    case 'NT_STATUS_NO_SUCH_USER':
    case 'NT_STATUS_ACCOUNT_DISABLED':
    case 'NT_STATUS_ACCOUNT_LOCKED_OUT':
    case 'NT_STATUS_ACCOUNT_EXPIRED':
    case 'NT_STATUS_ACCOUNT_RESTRICTION':
    case 'NT_STATUS_PASSWORD_EXPIRED':
    case 'NT_STATUS_PASSWORD_MUST_CHANGE':
    case 'NT_STATUS_INVALID_LOGON_HOURS':
    case 'NT_STATUS_INVALID_WORKSTATION':
    case 'NT_STATUS_LOGON_TYPE_NOT_GRANTED':
    case 'NT_STATUS_MORE_PROCESSING_REQUIRED':
    case 'NT_STATUS_NO_LOGON_SERVERS':
    case 'NT_STATUS_TRUSTED_RELATIONSHIP_FAILURE':
      return 'auth';
    case 'NT_STATUS_OBJECT_NAME_NOT_FOUND':
    case 'NT_STATUS_OBJECT_PATH_NOT_FOUND':
    case 'NT_STATUS_NO_SUCH_FILE':
    case 'NT_STATUS_NOT_A_DIRECTORY':
    case 'NT_STATUS_BAD_NETWORK_NAME':
    case 'NT_STATUS_OBJECT_NAME_INVALID':
    case 'NT_STATUS_OBJECT_PATH_SYNTAX_BAD':
    case 'NT_STATUS_DELETE_PENDING':
    case 'NT_STATUS_FILE_IS_A_DIRECTORY':
      return 'not-found';
    case 'NT_STATUS_CONNECTION_REFUSED':
    case 'NT_STATUS_CONNECTION_DISCONNECTED':
    case 'NT_STATUS_CONNECTION_RESET':
    case 'NT_STATUS_CONNECTION_ABORTED':
    case 'NT_STATUS_IO_TIMEOUT':
    case 'NT_STATUS_HOST_UNREACHABLE':
    case 'NT_STATUS_NETWORK_UNREACHABLE':
    case 'NT_STATUS_PORT_UNREACHABLE':
    case 'NT_STATUS_BAD_NETWORK_PATH':
    case 'NT_STATUS_NETWORK_NAME_DELETED':
    case 'NT_STATUS_USER_SESSION_DELETED':
    case 'NT_STATUS_NETWORK_SESSION_EXPIRED':
    case 'NT_STATUS_INVALID_NETWORK_RESPONSE':
    case 'NT_STATUS_PIPE_BROKEN':
    case 'NT_STATUS_PIPE_DISCONNECTED':
    case 'NT_STATUS_END_OF_FILE':
    case 'NT_STATUS_REMOTE_DISCONNECT':
    case 'NT_STATUS_LOCAL_DISCONNECT':
    case 'NT_STATUS_INVALID_CONNECTION':
    case 'NT_STATUS_UNEXPECTED_NETWORK_ERROR':
    case 'NT_STATUS_NETWORK_BUSY':
      return 'unavailable';
    default:
      return 'io';
  }
}

/** A connection-level failure line (login, share, server unreachable), or null. */
export function connectFailure(line: string): HandlerError | null {
  const m = CONNECT_ERROR.exec(line);
  if (!m) return null;
  const status = m[1];
  if (line.startsWith('tree connect failed') && status === 'NT_STATUS_BAD_NETWORK_NAME') {
    return new HandlerError('not-found', `the share does not exist (${status})`);
  }
  if (line.startsWith('tree connect failed') && status === 'NT_STATUS_ACCESS_DENIED') {
    return new HandlerError('access-denied', `access to the share denied (${status})`);
  }
  const code = ntStatusCode(status);
  const what =
    code === 'auth' ? 'login failed' : code === 'unavailable' ? 'server unavailable' : 'connection failed';
  return new HandlerError(
    code === 'io' || code === 'not-found' ? 'unavailable' : code,
    `${what} (${status})`,
  );
}

/** One command of a listing batch: the quoted mask smbclient is given (`dir\*` or `a\b`). */
export interface ListingCommand {
  mask: string;
}

/**
 * Parses the stdout of one smbclient process that ran `ls "<mask>"` commands in order (optionally
 * after `showacls ON`), reporting each command's result as soon as its block ends: at the
 * disk-free line, at `Error in dskattr`, or at the `NT_STATUS_… listing <mask>` error line (which
 * must name that command's mask). Feed it whole lines; call `end()` when the process has exited.
 */
export class ListingBatchParser {
  private index = 0;
  private entries: SmbEntry[] = [];
  private entry: EntryBuilder | null = null;
  private failed: HandlerError | null = null;
  private sawOutput = false;

  constructor(
    private readonly commands: readonly ListingCommand[],
    private readonly showacls: boolean,
    private readonly onResult: (index: number, result: ListingResult) => void,
  ) {}

  /** Commands whose results are still to come. */
  get pending(): number {
    return this.commands.length - this.index;
  }

  push(line: string): void {
    if (this.index >= this.commands.length) return;
    if (!this.sawOutput && line === HELP_LINE) return;
    this.sawOutput = true;
    const conn = connectFailure(line);
    if (conn) {
      this.failAll(conn);
      return;
    }
    if (BLOCKS_LINE.test(line) || DSKATTR_ERROR.test(line)) {
      this.finish();
      return;
    }
    const err = LIST_ERROR.exec(line);
    if (err) {
      const expected = `\\${this.commands[this.index].mask}`;
      this.entry = null;
      if (err[2] !== expected) {
        this.failAll(
          new HandlerError(
            'io',
            `smbclient output out of step: expected a listing of ${expected}, got ${line}`,
          ),
        );
        return;
      }
      this.emit({ ok: false, error: ntStatusError(err[1], `${err[1]} listing ${expected}`) });
      return;
    }
    if (this.failed) return;
    if (this.showacls) this.pushAcl(line);
    else this.pushPlain(line);
  }

  /** The process ended: every command without a result gets `error` (or a generic one). */
  end(error?: HandlerError): void {
    if (this.index >= this.commands.length) return;
    this.failAll(error ?? new HandlerError('io', 'smbclient ended before answering every command'));
  }

  private pushPlain(line: string): void {
    if (line === '') return;
    const row = parseLsRow(line);
    if (!row) {
      this.failed ??= new HandlerError('io', `unexpected smbclient output: ${JSON.stringify(line)}`);
      return;
    }
    if (row.name !== '.' && row.name !== '..') this.entries.push(row);
  }

  private pushAcl(line: string): void {
    if (line.startsWith('FILENAME:')) {
      this.closeEntry();
      this.entry = new EntryBuilder(line.slice(9));
      return;
    }
    if (line === '' && !this.entry) return;
    if (!this.entry) {
      this.failed ??= new HandlerError('io', `unexpected smbclient output: ${JSON.stringify(line)}`);
      return;
    }
    const problem = this.entry.push(line);
    if (problem) this.failed ??= new HandlerError('io', `${problem}: ${JSON.stringify(line)}`);
  }

  private closeEntry(): void {
    if (!this.entry) return;
    const { entry, problem } = this.entry.build();
    this.entry = null;
    if (problem) this.failed ??= new HandlerError('io', problem);
    else if (entry) this.entries.push(entry);
  }

  private finish(): void {
    this.closeEntry();
    this.emit(this.failed ? { ok: false, error: this.failed } : { ok: true, entries: this.entries });
  }

  private emit(result: ListingResult): void {
    const i = this.index++;
    this.entries = [];
    this.entry = null;
    this.failed = null;
    this.onResult(i, result);
  }

  private failAll(error: HandlerError): void {
    while (this.index < this.commands.length) this.emit({ ok: false, error });
  }
}

/** Builds one `showacls` entry: FILENAME/MODE/SIZE/MTIME, then the security descriptor, if any. */
class EntryBuilder {
  private attrs: string | null = null;
  private size: number | null = null;
  private mtimeMs: number | null = null;
  private sawSecurity = false;
  private section: 'none' | 'sacl' | 'dacl' = 'none';
  private dacl: NtAce[] | null = null;
  private expectedAces = -1;
  private ace: Partial<NtAce> | null = null;
  private acesSeen = 0;
  private badAce = false;
  private owner: string | undefined;

  constructor(private readonly name: string) {}

  /** Consume one line; returns a problem description when the line does not fit. */
  push(line: string): string | null {
    if (this.attrs === null) {
      const m = /^MODE:([A-Za-z]*)$/.exec(line);
      if (!m || !isAttrString(m[1])) return 'expected MODE';
      this.attrs = m[1];
      return null;
    }
    if (this.size === null) {
      const m = /^SIZE:(\d+)$/.exec(line);
      if (!m) return 'expected SIZE';
      this.size = Number(m[1]);
      return null;
    }
    if (this.mtimeMs === null) {
      const t = line.startsWith('MTIME:') ? parseAsctime(line.slice(6)) : null;
      if (t === null) return 'expected MTIME';
      this.mtimeMs = t;
      return null;
    }
    if (!this.sawSecurity) {
      if (line === '') return null;
      if (!/^revision: \d+$/.test(line)) return 'expected a security descriptor';
      this.sawSecurity = true;
      return null;
    }
    let m: RegExpExecArray | null;
    if (/^type: 0x[0-9a-f]{1,4}: /i.test(line)) return null;
    if (line === 'SACL') {
      this.closeAce();
      this.section = 'sacl';
      return null;
    }
    if (line === 'DACL') {
      this.closeAce();
      this.section = 'dacl';
      this.dacl = [];
      return null;
    }
    if (line === '' || line === '\t---' || /^\t\tSpecific bits: 0x[0-9a-f]+$/i.test(line)) return null;
    if (/^Object (type|GUID): /.test(line)) return null;
    if ((m = /^\tACL\tNum ACEs:\t(\d+)\trevision:\t[0-9a-f]+$/i.exec(line))) {
      if (this.section === 'dacl') this.expectedAces = Number(m[1]);
      return null;
    }
    if (line === '\tACE') {
      this.closeAce();
      this.ace = {};
      return null;
    }
    if ((m = /^\t\ttype: .* \((\d+)\) flags: 0x([0-9a-f]{2}) /i.exec(line))) {
      if (!this.ace) return 'ACE type outside an ACE';
      const t = Number(m[1]);
      // 0 allowed, 1 denied; object and audit types are not file DACL entries
      this.ace.type = t === 0 ? 'allow' : t === 1 ? 'deny' : undefined;
      this.ace.flags = parseInt(m[2], 16);
      return null;
    }
    if ((m = /^\t\tPermissions: 0x([0-9a-f]{1,8}): /i.exec(line))) {
      if (!this.ace) return 'permissions outside an ACE';
      this.ace.mask = parseInt(m[1], 16) >>> 0;
      return null;
    }
    if ((m = /^\t\tSID: (S-\d+-\d+(?:-\d+)*)$/.exec(line))) {
      if (!this.ace) return 'SID outside an ACE';
      this.ace.sid = m[1];
      return null;
    }
    if ((m = /^\tOwner SID:\t(S-\d+-\d+(?:-\d+)*)$/.exec(line))) {
      this.closeAce();
      this.owner = m[1];
      return null;
    }
    if (/^\tGroup SID:\tS-\d+-\d+(?:-\d+)*$/.test(line)) {
      this.closeAce();
      return null;
    }
    return 'unexpected line in a security descriptor';
  }

  private closeAce(): void {
    if (!this.ace) return;
    const a = this.ace;
    this.ace = null;
    if (this.section !== 'dacl') return;
    this.acesSeen++;
    if (a.flags === undefined || a.mask === undefined || !a.sid) {
      this.badAce = true;
      return;
    }
    if (a.type) this.dacl!.push({ type: a.type, sid: a.sid, mask: a.mask, flags: a.flags });
  }

  build(): { entry: SmbEntry | null; problem: string | null } {
    if (this.attrs === null || this.size === null || this.mtimeMs === null) {
      return { entry: null, problem: `incomplete listing entry for ${JSON.stringify(this.name)}` };
    }
    this.closeAce();
    if (this.badAce) return { entry: null, problem: `incomplete ACE for ${JSON.stringify(this.name)}` };
    let dacl: NtDacl;
    if (!this.sawSecurity) dacl = 'unreadable';
    else if (this.dacl === null)
      dacl = null; // no DACL section: a NULL DACL (SEC_DESC_DACL_PRESENT unset or empty)
    else {
      if (this.expectedAces >= 0 && this.acesSeen !== this.expectedAces) {
        return { entry: null, problem: `ACE count mismatch for ${JSON.stringify(this.name)}` };
      }
      dacl = this.dacl;
    }
    return {
      entry: {
        name: this.name,
        attrs: this.attrs,
        isDir: this.attrs.includes('D'),
        size: this.size,
        mtimeMs: this.mtimeMs,
        dacl,
        owner: this.owner,
      },
      problem: null,
    };
  }
}

/** `pwd` prints this; sent after a recursive listing, it marks the listing's end. */
const SENTINEL = /^Current directory is /;

/**
 * Parses the stdout of `recurse ON; ls "<root>\*"; pwd`: the root's rows come first without a
 * header, then each folder's rows after a blank line and a `\path` header (share-relative), then
 * the disk-free line — which smbclient leaves out when any folder failed, hence the `pwd` whose
 * answer ends the listing. Reports each folder (as path segments below the share) when its block
 * ends; a folder that could not be listed reports the NT status of its `… listing \path\*` line.
 */
export class RecursiveListingParser {
  private current: string[];
  private entries: SmbEntry[] = [];
  private failed: HandlerError | null = null;
  private open = true;
  private sawOutput = false;
  private done = false;

  constructor(
    root: readonly string[],
    private readonly onFolder: (path: string[], result: ListingResult) => void,
  ) {
    this.current = [...root];
  }

  /** True once the closing `pwd` answer (or a connection failure) was seen. */
  get finished(): boolean {
    return this.done;
  }

  push(line: string): void {
    if (this.done) return;
    if (!this.sawOutput && line === HELP_LINE) return;
    this.sawOutput = true;
    const conn = connectFailure(line);
    if (conn) {
      this.flushWith({ ok: false, error: conn });
      this.done = true;
      return;
    }
    if (BLOCKS_LINE.test(line) || DSKATTR_ERROR.test(line)) {
      this.flush();
      return;
    }
    if (SENTINEL.test(line)) {
      // the `pwd` after the listing: everything before it was printed
      this.flush();
      this.done = true;
      return;
    }
    if (line === '') {
      this.flush();
      return;
    }
    if (line.startsWith('\\')) {
      this.flush();
      this.current = line.slice(1).split('\\').filter(Boolean);
      this.open = true;
      return;
    }
    const err = LIST_ERROR.exec(line);
    if (err) {
      const expected = `\\${[...this.current, '*'].join('\\')}`;
      if (err[2] !== expected) {
        this.failed ??= new HandlerError(
          'io',
          `smbclient output out of step: expected a listing of ${expected}, got ${line}`,
        );
      } else {
        this.failed = ntStatusError(err[1], `${err[1]} listing ${expected}`);
      }
      this.flush();
      return;
    }
    if (!this.open) {
      this.failed ??= new HandlerError('io', `unexpected smbclient output: ${JSON.stringify(line)}`);
      return;
    }
    const row = parseLsRow(line);
    if (!row) {
      this.failed ??= new HandlerError('io', `unexpected smbclient output: ${JSON.stringify(line)}`);
      return;
    }
    if (row.name !== '.' && row.name !== '..') this.entries.push(row);
  }

  /** The process ended; if the closing line never came, the open folder fails with `error`. */
  end(error?: HandlerError): void {
    if (this.done) return;
    this.done = true;
    if (this.open)
      this.flushWith({
        ok: false,
        error: error ?? new HandlerError('io', 'smbclient ended in the middle of a listing'),
      });
  }

  private flush(): void {
    if (!this.open) return;
    this.flushWith(this.failed ? { ok: false, error: this.failed } : { ok: true, entries: this.entries });
  }

  private flushWith(result: ListingResult): void {
    if (!this.open) return;
    this.open = false;
    const path = this.current;
    this.entries = [];
    this.failed = null;
    this.onFolder(path, result);
  }
}

/** What one stderr line of a `get` session (`smbclient -E -d1`) says, if anything. */
export type GetEvent =
  /** `getting file <remote> of size N as <local>`: finished (`ok`/`failed`) or still running (`started`). */
  | {
      kind: 'get';
      remote: string;
      local: string;
      size: number;
      state: 'ok' | 'failed' | 'started';
      error?: HandlerError;
    }
  /** The timing line that completes a started get (after a close warning). */
  | { kind: 'rate' }
  /** The get could not start; `remote` is set when the line names the file. */
  | { kind: 'failed'; remote?: string; error: HandlerError }
  /** The session itself failed (login, share, server). */
  | { kind: 'connect'; error: HandlerError };

const GET_LINE = /^getting file (.*) of size (\d+) as (\S+) ?(.*)$/;
const RATE = /^\((?:[\d.]+|inf|-?nan) KiloBytes\/sec\) \(average (?:[\d.]+|inf|-?nan) KiloBytes\/sec\)$/;

/**
 * Classify one stderr line of a `get "<remote>" "<local>"` session. The local names the session
 * chooses contain no spaces, so `as (\S+)` ends the line's path part unambiguously.
 */
export function classifyGetLine(line: string): GetEvent | null {
  const conn = connectFailure(line);
  if (conn) return { kind: 'connect', error: conn };
  let m = GET_LINE.exec(line);
  if (m) {
    const [, remote, size, local, rest] = m;
    const base = { kind: 'get' as const, remote, local, size: Number(size) };
    if (RATE.test(rest)) return { ...base, state: 'ok' };
    const pr = /^parallel_read returned (NT_STATUS_[A-Z0-9_]+)$/.exec(rest);
    if (pr) return { ...base, state: 'failed', error: ntStatusError(pr[1], `${pr[1]} reading ${remote}`) };
    if (rest === '' || /^Error NT_STATUS_[A-Z0-9_]+ closing remote file$/.test(rest))
      return { ...base, state: 'started' };
    return null;
  }
  if (RATE.test(line)) return { kind: 'rate' };
  if ((m = /^(NT_STATUS_[A-Z0-9_]+) opening remote file (.*)$/.exec(line))) {
    return { kind: 'failed', remote: m[2], error: ntStatusError(m[1], `${m[1]} opening ${m[2]}`) };
  }
  if ((m = /^Failed to open (.*): (NT_STATUS_[A-Z0-9_]+)$/.exec(line))) {
    return { kind: 'failed', remote: m[1], error: ntStatusError(m[2], `${m[2]} opening ${m[1]}`) };
  }
  if ((m = /^getattrib: (NT_STATUS_[A-Z0-9_]+)$/.exec(line))) {
    return { kind: 'failed', error: ntStatusError(m[1], `${m[1]} reading the file's attributes`) };
  }
  if (/^Error opening local file /.test(line)) {
    return { kind: 'failed', error: new HandlerError('io', line) };
  }
  return null;
}
