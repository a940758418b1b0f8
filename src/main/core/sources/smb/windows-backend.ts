/**
 * The SMB back-end for Windows: UNC paths (`\\server\share\…`) through Node's `fs`, DACLs from one
 * long-lived PowerShell process (`Get-Acl`, batched per folder) that returns each descriptor in its
 * binary self-relative form, parsed here exactly (no account-name or SDDL-alias guessing).
 * A crawl account is connected with `New-SmbMapping` (its password travels on the helper's stdin,
 * never on a command line) and disconnected at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HandlerError } from '../handler.js';
import type { NtAce, NtSecurity } from './nt-security.js';
import type { SmbBackend, SmbTarget } from './smb-backend.js';
import type { ListingResult, SmbEntry } from './smbclient-output.js';
import { splitAccount, startClient, type ClientProcess } from './smbclient-process.js';

/** Options for {@link createWindowsBackend}. */
export interface WindowsBackendOptions {
  /** PowerShell executable (default `powershell.exe`; `pwsh` works too). */
  powershell?: string;
  /** Replace the UNC root `\\server\share` (tests on other platforms point it at a local folder). */
  root?: string;
  /** Path module for joining below the root (default `path.win32`; tests use `path`). */
  pathModule?: typeof path;
}

// ---- binary security descriptors ----

const SE_DACL_PRESENT = 0x0004;

/** A SID in binary form at `off` as `S-1-…`; returns it and its length. */
export function readSid(buf: Buffer, off: number): { sid: string; length: number } {
  if (off + 8 > buf.length) throw new RangeError('SID out of range');
  const rev = buf[off];
  const count = buf[off + 1];
  if (rev !== 1 || count > 15 || off + 8 + 4 * count > buf.length) throw new RangeError('malformed SID');
  const auth = buf.readUIntBE(off + 2, 6);
  const parts = [`S-1-${auth >= 2 ** 32 ? `0x${auth.toString(16).toUpperCase().padStart(12, '0')}` : auth}`];
  for (let i = 0; i < count; i++) parts.push(String(buf.readUInt32LE(off + 8 + 4 * i)));
  return { sid: parts.join('-'), length: 8 + 4 * count };
}

/**
 * Parse a self-relative SECURITY_DESCRIPTOR (what `GetSecurityDescriptorBinaryForm()` returns):
 * the DACL's allow and deny entries in order (object and callback entries are not file-system
 * entries: a callback deny counts as a deny, a callback allow does not grant), and the owner.
 * A missing DACL is a NULL DACL (`dacl: null`, everyone has access). Throws RangeError when malformed.
 */
export function parseSecurityDescriptor(buf: Buffer): NtSecurity {
  if (buf.length < 20 || buf[0] !== 1) throw new RangeError('not a self-relative security descriptor');
  const control = buf.readUInt16LE(2);
  const ownerOff = buf.readUInt32LE(4);
  const daclOff = buf.readUInt32LE(16);
  const owner = ownerOff ? readSid(buf, ownerOff).sid : undefined;
  if (!(control & SE_DACL_PRESENT) || daclOff === 0) return { dacl: null, owner };
  if (daclOff + 8 > buf.length) throw new RangeError('DACL out of range');
  const aclSize = buf.readUInt16LE(daclOff + 2);
  const count = buf.readUInt16LE(daclOff + 4);
  if (daclOff + aclSize > buf.length) throw new RangeError('DACL out of range');
  const aces: NtAce[] = [];
  let p = daclOff + 8;
  for (let i = 0; i < count; i++) {
    if (p + 8 > daclOff + aclSize) throw new RangeError('ACE out of range');
    const type = buf[p];
    const flags = buf[p + 1];
    const size = buf.readUInt16LE(p + 2);
    if (size < 8 || p + size > daclOff + aclSize) throw new RangeError('malformed ACE');
    const mask = buf.readUInt32LE(p + 4);
    let sidOff = p + 8;
    if (type === 5 || type === 6 || type === 11 || type === 12) {
      const oflags = buf.readUInt32LE(p + 8);
      sidOff = p + 12 + (oflags & 1 ? 16 : 0) + (oflags & 2 ? 16 : 0);
    }
    const isAllow = type === 0;
    const isDeny = type === 1 || type === 10;
    if (isAllow || isDeny)
      aces.push({ type: isAllow ? 'allow' : 'deny', sid: readSid(buf, sidOff).sid, mask, flags });
    p += size;
  }
  return { dacl: aces, owner };
}

// ---- the PowerShell helper ----

/** The helper script: one JSON request per stdin line, answered by lines ending with `END`. */
export const ACL_HELPER_SCRIPT = `
$ErrorActionPreference = 'Stop'
[Console]::InputEncoding = New-Object System.Text.UTF8Encoding $false
[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false
$out = [Console]::Out
while ($true) {
  $line = [Console]::In.ReadLine()
  if ($line -eq $null) { break }
  $req = $line | ConvertFrom-Json
  if ($req.op -eq 'map') {
    try {
      New-SmbMapping -RemotePath $req.remote -UserName $req.user -Password $req.password | Out-Null
      $out.WriteLine('OK')
    } catch { $out.WriteLine('ERR' + [char]9 + ($_.Exception.Message -replace '[\\r\\n\\t]', ' ')) }
  } elseif ($req.op -eq 'unmap') {
    try { Remove-SmbMapping -RemotePath $req.remote -Force -UpdateProfile | Out-Null } catch { }
    $out.WriteLine('OK')
  } elseif ($req.op -eq 'acl') {
    foreach ($p in $req.paths) {
      try {
        $sd = (Get-Acl -LiteralPath $p).GetSecurityDescriptorBinaryForm()
        $out.WriteLine('OK' + [char]9 + $p + [char]9 + [Convert]::ToBase64String($sd))
      } catch { $out.WriteLine('ERR' + [char]9 + $p + [char]9 + ($_.Exception.Message -replace '[\\r\\n\\t]', ' ')) }
    }
  }
  $out.WriteLine('END')
  $out.Flush()
}
`;

/** One path's answer from the helper. */
export type AclAnswer = { ok: true; security: NtSecurity } | { ok: false; message: string };

/**
 * Parse the helper's answer to an `acl` request for `paths` (lines up to, not including, `END`).
 * Lines must come in request order and name the requested path; a descriptor that does not parse
 * is an error for that path. Throws HandlerError('io') when the answer is out of step.
 */
export function parseAclAnswer(lines: readonly string[], paths: readonly string[]): AclAnswer[] {
  if (lines.length !== paths.length)
    throw new HandlerError('io', `PowerShell answered ${lines.length} of ${paths.length} paths`);
  return lines.map((line, i) => {
    const [status, p, rest, ...more] = line.split('\t');
    if (p !== paths[i] || more.length || rest === undefined)
      throw new HandlerError('io', `PowerShell output out of step: ${JSON.stringify(line)}`);
    if (status === 'ERR') return { ok: false, message: rest };
    if (status !== 'OK' || !/^[A-Za-z0-9+/]+={0,2}$/.test(rest))
      throw new HandlerError('io', `unexpected PowerShell output: ${JSON.stringify(line)}`);
    try {
      return { ok: true, security: parseSecurityDescriptor(Buffer.from(rest, 'base64')) };
    } catch (e) {
      return { ok: false, message: `unreadable security descriptor (${(e as Error).message})` };
    }
  });
}

class AclHelper {
  private proc: ClientProcess | null = null;
  private lines: string[] = [];
  private waiting: ((lines: string[] | Error) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly bin: string) {}

  private ensure(): ClientProcess {
    if (this.proc) return this.proc;
    const encoded = Buffer.from(ACL_HELPER_SCRIPT, 'utf16le').toString('base64');
    const proc = startClient(
      this.bin,
      ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', encoded],
      process.env,
      (l) => {
        if (l === 'END') {
          const got = this.lines;
          this.lines = [];
          this.waiting.shift()?.(got);
        } else this.lines.push(l);
      },
    );
    this.proc = proc;
    void proc.ended.then((end) => {
      this.proc = null;
      const err =
        end.spawnError ??
        new Error(`PowerShell ended (${end.code ?? end.signal}): ${end.stderr.slice(-2).join(' ')}`);
      for (const w of this.waiting.splice(0)) w(err);
    });
    return proc;
  }

  /** Send one request; resolves with its answer lines. Requests run one at a time. */
  request(req: object): Promise<string[]> {
    const run = async (): Promise<string[]> => {
      const proc = this.ensure();
      const answer = new Promise<string[] | Error>((r) => this.waiting.push(r));
      proc.write(`${JSON.stringify(req)}\n`);
      const got = await answer;
      if (got instanceof Error) throw new HandlerError('io', got.message);
      return got;
    };
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  close(): void {
    this.proc?.endInput();
  }
}

// ---- the back-end ----

function mapFsError(e: NodeJS.ErrnoException, p: string): HandlerError {
  switch (e.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new HandlerError('not-found', `${p}: no such file or folder`);
    case 'EACCES':
    case 'EPERM':
      return new HandlerError('access-denied', `${p}: access denied`);
    case 'ECONNRESET':
    case 'ECONNREFUSED':
    case 'ECONNABORTED':
    case 'ETIMEDOUT':
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return new HandlerError('unavailable', `${p}: the server is unavailable (${e.code})`);
    default:
      if (/logon failure|user name or password/i.test(e.message))
        return new HandlerError('auth', `${p}: ${e.message}`);
      return new HandlerError('io', `${p}: ${e.code ?? ''} ${e.message}`.trim());
  }
}

/** Create the Windows back-end for one share of one crawl. */
export function createWindowsBackend(target: SmbTarget, opts: WindowsBackendOptions = {}): SmbBackend {
  const loc = target.location;
  const pm = opts.pathModule ?? path.win32;
  if (!opts.root && loc.port && loc.port !== 445) {
    throw new HandlerError(
      'unavailable',
      `Windows reaches SMB shares through UNC paths on port 445 only (asked for port ${loc.port})`,
    );
  }
  const uncShare = `\\\\${loc.host}\\${loc.share}`;
  const root = opts.root ?? uncShare;
  const helper = new AclHelper(opts.powershell ?? 'powershell.exe');
  const full = (p: readonly string[]): string => (p.length ? pm.join(root, ...p) : root);
  let fatal: HandlerError | null = null;
  let mapped = false;
  let ready: Promise<void> | null = null;

  const connect = (): Promise<void> => {
    if (ready) return ready;
    ready = (async () => {
      if (!target.credential || opts.root) return;
      const { user, domain } = splitAccount(target.credential);
      const lines = await helper.request({
        op: 'map',
        remote: uncShare,
        user: domain ? `${domain}\\${user}` : user,
        password: target.credential.password,
      });
      if (lines[0] !== 'OK')
        throw new HandlerError(
          'auth',
          `connecting ${uncShare} failed: ${(lines[0] ?? '').replace(/^ERR\t/, '')}`,
        );
      mapped = true;
    })();
    return ready;
  };

  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (fatal) throw fatal;
    await connect();
    try {
      return await fn();
    } catch (e) {
      const err =
        e instanceof HandlerError
          ? e
          : mapFsError(e as NodeJS.ErrnoException, String((e as { path?: string }).path ?? root));
      if (err.code === 'unavailable' || err.code === 'auth') fatal ??= err;
      throw err;
    }
  };

  const acls = async (paths: string[]): Promise<AclAnswer[]> => {
    if (!target.captureAcls || !paths.length)
      return paths.map(() => ({ ok: false, message: 'not captured' }));
    const lines = await helper.request({ op: 'acl', paths });
    return parseAclAnswer(lines, paths);
  };

  const entryFor = (name: string, st: fs.Stats, acl: AclAnswer | undefined): SmbEntry => {
    const isDir = st.isDirectory();
    const e: SmbEntry = {
      name,
      attrs: isDir ? 'D' : '',
      isDir,
      size: isDir ? 0 : st.size,
      mtimeMs: Math.trunc(st.mtimeMs),
      ctimeMs: Math.trunc(st.ctimeMs),
    };
    if (target.captureAcls) {
      e.dacl = acl?.ok ? acl.security.dacl : 'unreadable';
      if (acl?.ok) e.owner = acl.security.owner;
    }
    return e;
  };

  return {
    stat: (paths) =>
      guard(async () => {
        const out: ListingResult[] = [];
        const found: { i: number; st: fs.Stats; p: string }[] = [];
        for (let i = 0; i < paths.length; i++) {
          const p = full(paths[i]);
          try {
            found.push({ i, st: await fs.promises.stat(p), p });
            out[i] = { ok: true, entries: [] };
          } catch (e) {
            out[i] = { ok: false, error: mapFsError(e as NodeJS.ErrnoException, p) };
          }
        }
        const answers = await acls(found.map((f) => f.p));
        found.forEach((f, j) => {
          out[f.i] = { ok: true, entries: [entryFor(paths[f.i][paths[f.i].length - 1], f.st, answers[j])] };
        });
        return out;
      }),

    list: (folder) =>
      guard(async () => {
        const dir = full(folder);
        const dirents = await fs.promises.readdir(dir, { withFileTypes: true });
        const stats: { name: string; st: fs.Stats; p: string }[] = [];
        await Promise.all(
          dirents.map(async (d) => {
            const p = pm.join(dir, d.name);
            try {
              const st = await fs.promises.stat(p);
              if (st.isFile() || st.isDirectory()) stats.push({ name: d.name, st, p });
            } catch {
              /* vanished since the listing */
            }
          }),
        );
        stats.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const answers = await acls(stats.map((s) => s.p));
        return stats.map((s, i) => entryFor(s.name, s.st, answers[i]));
      }),

    read: (file, size, maxBytes, head) =>
      guard(async () => {
        if (size > maxBytes && !head) return { bytes: Buffer.alloc(0), truncated: true };
        const fh = await fs.promises.open(full(file), 'r');
        try {
          const st = await fh.stat();
          const want = Math.min(st.size, maxBytes);
          const buf = Buffer.alloc(want);
          let off = 0;
          while (off < want) {
            const { bytesRead } = await fh.read(buf, off, want - off, off);
            if (bytesRead === 0) break;
            off += bytesRead;
          }
          return { bytes: off === want ? buf : buf.subarray(0, off), truncated: st.size > maxBytes };
        } finally {
          await fh.close();
        }
      }),

    async close() {
      try {
        if (mapped) await helper.request({ op: 'unmap', remote: uncShare });
      } catch {
        /* the mapping ends with the logon session anyway */
      }
      helper.close();
    },
  };
}
