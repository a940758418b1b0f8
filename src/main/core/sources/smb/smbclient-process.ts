/**
 * Running Samba's command-line clients (`smbclient`, `rpcclient`) without exposing credentials:
 * the account name goes into a 0600 authentication file in a private 0700 folder (so the client
 * treats it as explicitly requested and never falls back to anonymous), the password only into the
 * child's environment (`PASSWD`). Nothing secret is ever on a command line or in a log line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { HandlerError } from '../handler.js';

/** An account for an SMB server. */
export interface SmbCredential {
  user: string;
  password: string;
  domain?: string;
}

/**
 * Split `DOMAIN\name` (or `name@REALM`, kept whole) into name and domain; an explicit `domain`
 * wins over one embedded in the name.
 */
export function splitAccount(cred: SmbCredential): { user: string; domain: string | undefined } {
  const m = /^([^\\/]+)[\\/](.+)$/.exec(cred.user);
  if (m) return { user: m[2], domain: cred.domain || m[1] };
  return { user: cred.user, domain: cred.domain || undefined };
}

/**
 * Credentials prepared for child processes. `args` name the authentication file; `env` carries the
 * password. Call `dispose()` when the last process using them has been started and finished.
 */
export class ClientCredentials {
  private dir: string | null = null;
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;

  constructor(cred: SmbCredential | null) {
    const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
    for (const k of ['PASSWD', 'PASSWD_FD', 'PASSWD_FILE']) delete env[k];
    if (!cred) {
      // The current login: a Kerberos ticket when there is one, else an anonymous/guest session.
      this.args = ['-N', '--use-kerberos=desired'];
      this.env = env;
      return;
    }
    const { user, domain } = splitAccount(cred);
    for (const v of [user, domain ?? '', cred.password]) {
      if (v.includes('\n') || v.includes('\r') || v.includes('\u0000'))
        throw new HandlerError('auth', 'an SMB credential contains a line break');
    }
    if (!user.trim()) throw new HandlerError('auth', 'an SMB credential has an empty user name');
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-smb-'));
    fs.chmodSync(this.dir, 0o700);
    const file = path.join(this.dir, 'auth');
    fs.writeFileSync(file, `username = ${user}\n${domain ? `domain = ${domain}\n` : ''}`, {
      mode: 0o600,
      flag: 'wx',
    });
    delete env.USER;
    delete env.LOGNAME;
    env.PASSWD = cred.password;
    this.args = ['-A', file];
    this.env = env;
  }

  /** Remove the authentication file and its folder. Idempotent. */
  dispose(): void {
    if (!this.dir) return;
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** Calls `onLine` for every complete UTF-8 line of a stream; returns a function flushing the rest. */
export function readLines(stream: Readable, onLine: (line: string) => void): () => void {
  const decoder = new StringDecoder('utf8');
  let buf = '';
  stream.on('data', (chunk: Buffer) => {
    buf += decoder.write(chunk);
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
  });
  return () => {
    buf += decoder.end();
    if (buf) onLine(buf);
    buf = '';
  };
}

/** How a client process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last stderr lines (diagnostics; never contains secrets). */
  stderr: string[];
  /** Set when the process could not be started at all. */
  spawnError?: Error;
}

/** A running client process fed from `input` (stdin is closed after it unless `keepOpen`). */
export interface ClientProcess {
  child: ChildProcess;
  ended: Promise<ProcessEnd>;
  write(text: string): boolean;
  endInput(): void;
  kill(): void;
}

/**
 * Start `bin args` with `env`; stdout (as lines, or raw bytes) and stderr lines go to the
 * callbacks as they arrive.
 * The promise `ended` always resolves (spawn failures included), after the last line was delivered.
 */
export function startClient(
  bin: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onStdout: ((line: string) => void) | { bytes: (chunk: Buffer) => void },
  onStderr?: (line: string) => void,
): ClientProcess {
  const child = spawn(bin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const tail: string[] = [];
  let flushOut = (): void => {};
  if (typeof onStdout === 'function') flushOut = readLines(child.stdout!, onStdout);
  else child.stdout!.on('data', onStdout.bytes);
  const flushErr = readLines(child.stderr!, (l) => {
    if (tail.length >= 20) tail.shift();
    tail.push(l);
    onStderr?.(l);
  });
  child.stdin!.on('error', () => {
    /* the process ended before reading all input: reported through `ended` */
  });
  const ended = new Promise<ProcessEnd>((resolve) => {
    let spawnError: Error | undefined;
    child.on('error', (e) => {
      spawnError = e;
    });
    child.on('close', (code, signal) => {
      flushOut();
      flushErr();
      resolve({ code, signal, stderr: tail, spawnError });
    });
  });
  return {
    child,
    ended,
    write: (text) => (child.stdin!.writable ? child.stdin!.write(text) : false),
    endInput: () => {
      if (child.stdin!.writable) child.stdin!.end();
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

/** The error to report when a client process ended without answering. */
export function processFailure(tool: string, end: ProcessEnd): HandlerError {
  if (end.spawnError) {
    const code = (end.spawnError as NodeJS.ErrnoException).code;
    return new HandlerError(
      'unavailable',
      code === 'ENOENT'
        ? `${tool} is not installed (install Samba's client tools)`
        : `${tool} could not start: ${end.spawnError.message}`,
    );
  }
  const last = end.stderr
    .filter((l) => l.trim())
    .slice(-2)
    .join(' / ');
  const how = end.signal ? `was killed (${end.signal})` : `exited with code ${end.code}`;
  return new HandlerError('unavailable', `${tool} ${how}${last ? `: ${last}` : ''}`);
}
