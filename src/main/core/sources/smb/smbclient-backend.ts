/**
 * The SMB back-end for Linux and macOS: Samba's `smbclient` in batch mode, never one process per
 * file. Folders are listed by batches of `ls "dir\*"` commands per process (with `showacls ON`
 * when DACLs are captured: the client then prints each entry's security descriptor), prefetching
 * sub-folders breadth-first; without DACLs one `recurse ON; ls` process lists a whole tree. File
 * bytes come from long-lived `get` sessions fed one command per file on stdin.
 */
import { HandlerError } from '../handler.js';
import { smbclientPath, smbService } from './smb-address.js';
import type { SmbBackend, SmbTarget } from './smb-backend.js';
import {
  classifyGetLine,
  ListingBatchParser,
  RecursiveListingParser,
  type ListingResult,
  type SmbEntry,
} from './smbclient-output.js';
import { ClientCredentials, processFailure, startClient, type ClientProcess } from './smbclient-process.js';

/** Tuning of {@link createSmbclientBackend}; the defaults suit a workstation. */
export interface SmbclientOptions {
  /** The smbclient binary (default `smbclient` on PATH). */
  smbclient?: string;
  /** Extra client arguments, e.g. `['-m', 'SMB3']` or `['--option=client min protocol=SMB3']`. */
  extraArgs?: readonly string[];
  /** Listing processes running at once (default 2). */
  listProcesses?: number;
  /** Folders per listing process (default 200). */
  foldersPerBatch?: number;
  /** Fewer queued folders than this wait for more unless the crawl asks for one (default 16). */
  minBatch?: number;
  /** Long-lived `get` sessions (default 2). */
  readers?: number;
  /** Prefetch pauses while this many listed entries wait to be asked for (default 20,000). */
  prefetchLimit?: number;
  /** A client that prints nothing this long while it owes answers is ended (default 60 s). */
  idleTimeoutMs?: number;
  /**
   * List the sub-folders of every listed folder ahead of the crawl, breadth-first (default true).
   * Off, only folders asked for (`list`) or hinted (`prefetch`) are listed.
   */
  prefetch?: boolean;
}

/** A connection-level failure (login, share, server): it ends the session for good. */
class SessionError extends HandlerError {}

interface Folder {
  path: string[];
  key: string;
  promise: Promise<SmbEntry[]>;
  resolve: (e: SmbEntry[]) => void;
  reject: (e: HandlerError) => void;
  state: 'queued' | 'running' | 'done';
  demanded: boolean;
  size: number;
}

const folderKey = (p: readonly string[]): string => p.join('\u0000');

/** Create the smbclient back-end for one share of one crawl. Throws HandlerError('auth') for unusable credentials. */
export function createSmbclientBackend(target: SmbTarget, opts: SmbclientOptions = {}): SmbBackend {
  return new SmbclientBackend(target, opts);
}

class SmbclientBackend implements SmbBackend {
  private readonly creds: ClientCredentials;
  private readonly bin: string;
  private readonly live = new Set<ClientProcess>();
  private fatal: HandlerError | null = null;
  private contacted = false;
  private closed = false;
  private readonly folders = new Map<string, Folder>();
  private readonly queue: Folder[] = [];
  private running = 0;
  private buffered = 0;
  private readonly recursions: { root: string[]; done: boolean }[] = [];
  private readers: ReadSession[] = [];
  private readonly onAbort = (): void => this.fail(new HandlerError('io', 'the crawl was stopped'));

  constructor(
    private readonly target: SmbTarget,
    private readonly opts: SmbclientOptions,
  ) {
    this.creds = new ClientCredentials(target.credential);
    this.bin = opts.smbclient ?? 'smbclient';
    target.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private args(extra: readonly string[]): string[] {
    const loc = this.target.location;
    const a = [smbService(loc)];
    if (loc.port) a.push('-p', String(loc.port));
    a.push(...this.creds.args, ...(this.opts.extraArgs ?? []), ...extra);
    return a;
  }

  // ---- errors ----

  /** Record a result's error; connection-level ones end the session. */
  private note(err: HandlerError): HandlerError {
    let e = err;
    if (e instanceof SessionError || e.code === 'unavailable' || e.code === 'auth') {
      // A share that vanishes after the first contact is an unavailable server, not a missing item.
      if (this.contacted && e.code === 'not-found')
        e = new SessionError('unavailable', `the share is no longer available: ${e.message}`);
      this.fatal ??= e;
    }
    return e;
  }

  private checkUsable(): void {
    if (this.fatal) throw this.fatal;
    if (this.closed) throw new HandlerError('io', 'the SMB session is closed');
  }

  private fail(err: HandlerError): void {
    this.fatal ??= err;
    for (const p of this.live) p.kill();
    for (const f of this.folders.values()) if (f.state !== 'done') this.settle(f, { ok: false, error: err });
    this.queue.length = 0;
    for (const r of this.readers) r.failAll(err);
  }

  // ---- processes ----

  private spawn(
    extra: readonly string[],
    onOut: ((l: string) => void) | { bytes: (chunk: Buffer) => void },
    onErr?: (l: string) => void,
  ): ClientProcess {
    const proc = startClient(this.bin, this.args(extra), this.creds.env, onOut, onErr);
    this.live.add(proc);
    void proc.ended.then(() => this.live.delete(proc));
    return proc;
  }

  /** Kill `proc` when it prints nothing for the idle timeout while `owes()` is true. */
  private watchdog(proc: ClientProcess, owes: () => boolean): { poke(): void; stop(): void } {
    const ms = this.opts.idleTimeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | null = null;
    let timedOut = false;
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        if (!owes()) return arm();
        timedOut = true;
        proc.kill();
      }, ms);
      timer.unref();
    };
    arm();
    void proc.ended.then(() => {
      if (timer) clearTimeout(timer);
      if (timedOut)
        this.fatal ??= new SessionError(
          'unavailable',
          `no answer from the server for ${Math.round(ms / 1000)} s`,
        );
    });
    return {
      poke: arm,
      stop: () => {
        if (timer) clearTimeout(timer);
      },
    };
  }

  // ---- stat ----

  async stat(paths: readonly (readonly string[])[]): Promise<ListingResult[]> {
    this.checkUsable();
    const masks = paths.map((p) => smbclientPath(p));
    const results: ListingResult[] = new Array(paths.length);
    const acl = this.target.captureAcls;
    const parser = new ListingBatchParser(
      masks.map((mask) => ({ mask })),
      acl,
      (i, r) => (results[i] = r.ok ? r : { ok: false, error: this.note(r.error) }),
    );
    const proc = this.spawn([], (l) => {
      dog.poke();
      parser.push(l);
    });
    const dog = this.watchdog(proc, () => parser.pending > 0);
    proc.write(`${acl ? 'showacls ON\n' : ''}${masks.map((m) => `ls "${m}"\n`).join('')}`);
    proc.endInput();
    const end = await proc.ended;
    dog.stop();
    parser.end(this.fatal ?? processFailure('smbclient', end));
    if (results.some((r) => r.ok)) this.contacted = true;
    return results;
  }

  // ---- listing ----

  async list(folder: readonly string[]): Promise<SmbEntry[]> {
    this.checkUsable();
    const key = folderKey(folder);
    let f = this.folders.get(key);
    if (!f) {
      if (folder.length) smbclientPath(folder);
      f = this.newFolder([...folder]);
      if (this.target.captureAcls) this.queue.unshift(f);
    }
    f.demanded = true;
    if (this.target.captureAcls) {
      if (f.state === 'queued') {
        const i = this.queue.indexOf(f);
        if (i > 0) {
          this.queue.splice(i, 1);
          this.queue.unshift(f);
        }
      }
      this.pump();
    } else if (f.state === 'queued' && !this.coveredByRecursion(f.path)) {
      this.startRecursion(f);
    }
    try {
      return await f.promise;
    } finally {
      this.folders.delete(key);
      this.buffered -= f.size;
    }
  }

  private newFolder(p: string[]): Folder {
    let resolve!: (e: SmbEntry[]) => void;
    let reject!: (e: HandlerError) => void;
    const promise = new Promise<SmbEntry[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {
      /* observed by list(); prefetched folders nobody asks for must not be unhandled */
    });
    const f: Folder = {
      path: p,
      key: folderKey(p),
      promise,
      resolve,
      reject,
      state: 'queued',
      demanded: false,
      size: 0,
    };
    this.folders.set(f.key, f);
    return f;
  }

  private settle(f: Folder, r: ListingResult): void {
    if (f.state === 'done') return;
    f.state = 'done';
    if (!r.ok) {
      f.reject(this.note(r.error));
      return;
    }
    this.contacted = true;
    f.size = r.entries.length;
    this.buffered += f.size;
    f.resolve(r.entries);
  }

  /** Queue the sub-folders of a listed folder for listing ahead of the crawl asking for them. */
  private prefetchChildren(parent: string[], entries: SmbEntry[]): void {
    for (const e of entries) if (e.isDir) this.enqueue([...parent, e.name]);
  }

  /** Queue a folder for listing ahead of the crawl asking for it (once; never throws). */
  private enqueue(p: string[]): boolean {
    if (this.folders.has(folderKey(p))) return false;
    try {
      if (p.length) smbclientPath(p);
    } catch {
      return false; // the crawl will get the error when it asks
    }
    this.queue.push(this.newFolder(p));
    return true;
  }

  prefetch(folders: readonly (readonly string[])[]): void {
    if (this.fatal || this.closed || !this.target.captureAcls) return;
    let added = false;
    for (const f of folders) added = this.enqueue([...f]) || added;
    if (added) this.pump();
  }

  private pump(): void {
    if (this.fatal || this.closed) return;
    const max = this.opts.listProcesses ?? 2;
    const per = this.opts.foldersPerBatch ?? 200;
    const min = this.opts.minBatch ?? 16;
    const limit = this.opts.prefetchLimit ?? 20_000;
    while (this.running < max && this.queue.length) {
      const demanded = this.queue.filter((f) => f.demanded);
      if (!demanded.length) {
        if (this.buffered >= limit) return;
        if (this.running > 0 && this.queue.length < min) return;
      }
      const batch = [...demanded.slice(0, per)];
      for (const f of this.queue) {
        if (batch.length >= per) break;
        if (!f.demanded && (this.buffered < limit || batch.length === 0)) batch.push(f);
      }
      const taken = new Set(batch);
      for (let i = this.queue.length - 1; i >= 0; i--) if (taken.has(this.queue[i])) this.queue.splice(i, 1);
      void this.runListing(batch);
    }
  }

  private async runListing(batch: Folder[]): Promise<void> {
    this.running++;
    for (const f of batch) f.state = 'running';
    const parser = new ListingBatchParser(
      batch.map((f) => ({ mask: f.path.length ? `${smbclientPath(f.path)}\\*` : '*' })),
      true,
      (i, r) => {
        const f = batch[i];
        if (r.ok && this.opts.prefetch !== false) this.prefetchChildren(f.path, r.entries);
        this.settle(f, r);
      },
    );
    const proc = this.spawn([], (l) => {
      dog.poke();
      parser.push(l);
    });
    const dog = this.watchdog(proc, () => parser.pending > 0);
    proc.write(
      `showacls ON\n${batch.map((f) => `ls "${f.path.length ? `${smbclientPath(f.path)}\\*` : '*'}"\n`).join('')}`,
    );
    proc.endInput();
    const end = await proc.ended;
    dog.stop();
    parser.end(this.fatal ?? processFailure('smbclient', end));
    this.running--;
    this.pump();
  }

  /** Without DACLs: one `recurse ON` process lists the folder's whole tree. */
  private startRecursion(root: Folder): void {
    root.state = 'running';
    const rec = { root: root.path, done: false };
    this.recursions.push(rec);
    const parser = new RecursiveListingParser(root.path, (p, r) => {
      const key = folderKey(p);
      const f = this.folders.get(key) ?? this.newFolder(p);
      this.settle(f, r);
    });
    const proc = this.spawn([], (l) => {
      dog.poke();
      parser.push(l);
    });
    const dog = this.watchdog(proc, () => !parser.finished);
    const mask = root.path.length ? `${smbclientPath(root.path)}\\*` : '*';
    proc.write(`recurse ON\nls "${mask}"\nrecurse OFF\npwd\n`);
    proc.endInput();
    void proc.ended.then((end) => {
      dog.stop();
      parser.end(this.fatal ?? processFailure('smbclient', end));
      rec.done = true;
      // Folders asked for under this tree that it did not report (created meanwhile, or below a
      // folder that failed) are listed again on their own.
      for (const f of [...this.folders.values()]) {
        if (f.state === 'queued' && f.demanded && isBelow(f.path, rec.root)) {
          if (this.fatal) this.settle(f, { ok: false, error: this.fatal });
          else this.startRecursion(f);
        }
      }
    });
  }

  /** In plain mode a folder under a running recursion waits for it instead of starting another. */
  private coveredByRecursion(p: readonly string[]): boolean {
    return this.recursions.some((r) => !r.done && isBelow(p, r.root));
  }

  // ---- reading ----

  async read(
    file: readonly string[],
    size: number,
    maxBytes: number,
  ): Promise<{ bytes: Buffer; truncated: boolean }> {
    this.checkUsable();
    const remote = smbclientPath(file);
    // smbclient has no ranged read, so a head is never cut from a fetched file: the crawler then
    // reads the item whole, once, rather than fetching it for its head and maybe again after.
    if (size > maxBytes) return { bytes: Buffer.alloc(0), truncated: true };
    const n = Math.max(1, this.opts.readers ?? 2);
    if (this.readers.length < n) {
      this.readers.push(
        new ReadSession(
          (onOut, onErr) => this.spawn(['-E', '-d', '1'], { bytes: onOut }, onErr),
          (e) => this.note(e),
          this.opts.idleTimeoutMs ?? 60_000,
        ),
      );
    }
    const reader = this.readers.reduce((a, b) => (b.load < a.load ? b : a));
    const bytes = await reader.get(remote);
    this.contacted = true;
    return bytes.length > maxBytes
      ? { bytes: bytes.subarray(0, maxBytes), truncated: true }
      : { bytes, truncated: false };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.target.signal.removeEventListener('abort', this.onAbort);
    const ends = [...this.live].map((p) => p.ended);
    for (const r of this.readers) r.close();
    for (const p of this.live) p.kill();
    await Promise.all(ends);
    for (const f of this.folders.values())
      if (f.state !== 'done')
        this.settle(f, { ok: false, error: new HandlerError('io', 'the SMB session is closed') });
    this.creds.dispose();
  }
}

function isBelow(p: readonly string[], root: readonly string[]): boolean {
  return p.length >= root.length && root.every((s, i) => s === p[i]);
}

interface PendingGet {
  remote: string;
  resolve: (bytes: Buffer) => void;
  reject: (e: HandlerError) => void;
}

/**
 * One long-lived `smbclient -E -d1` process answering `get "<remote>" -` commands, one at a time:
 * smbclient reads stdin through a buffer it only refills after poll() says the pipe has data, so a
 * second command written before the first is answered would sit unseen in that buffer. With `-E`
 * every message goes to stderr and stdout carries nothing but file bytes, so the bytes of the one
 * command in flight are exactly what stdout delivers until its `getting file … of size N as -`
 * line (see `classifyGetLine`) — and there must be N of them. Anything else (more or fewer bytes,
 * bytes with no command, a transfer broken off) ends the process; the next get starts a new one.
 */
class ReadSession {
  private proc: ClientProcess | null = null;
  private readonly waiting: PendingGet[] = [];
  private current: PendingGet | null = null;
  private chunks: Buffer[] = [];
  private received = 0;
  /** Size announced by the finished command, waiting for its last bytes to arrive. */
  private expect: number | null = null;
  private dog: NodeJS.Timeout | null = null;

  constructor(
    private readonly start: (onOut: (chunk: Buffer) => void, onErr: (line: string) => void) => ClientProcess,
    private readonly note: (e: HandlerError) => HandlerError,
    private readonly idleMs: number,
  ) {}

  /** Commands queued or running here (the back-end sends new reads to the least busy session). */
  get load(): number {
    return this.waiting.length + (this.current ? 1 : 0);
  }

  get(remote: string): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.push({ remote: `\\${remote}`, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.current || !this.waiting.length) return;
    const proc = this.ensure();
    this.current = this.waiting.shift()!;
    this.chunks = [];
    this.received = 0;
    this.expect = null;
    this.arm(this.idleMs);
    proc.write(`get "${this.current.remote.slice(1)}" -\n`);
  }

  private ensure(): ClientProcess {
    if (this.proc) return this.proc;
    const proc = this.start(
      (chunk) => this.onBytes(chunk),
      (l) => this.onLine(l),
    );
    this.proc = proc;
    void proc.ended.then((end) => {
      if (this.proc === proc) this.proc = null;
      this.failAll(this.note(processFailure('smbclient', end)));
    });
    return proc;
  }

  /** End this process (its stream can no longer be trusted) and fail what it owed. */
  private reset(err: HandlerError): void {
    const proc = this.proc;
    this.proc = null;
    proc?.kill();
    const cur = this.current;
    this.current = null;
    this.clearDog();
    cur?.reject(err);
    this.next();
  }

  private arm(ms: number): void {
    this.clearDog();
    this.dog = setTimeout(() => {
      if (this.expect !== null) {
        this.reset(
          new HandlerError(
            'io',
            `the file changed while it was read (${this.received} of ${this.expect} bytes)`,
          ),
        );
        return;
      }
      this.failAll(
        this.note(
          new SessionError('unavailable', `no answer from the server for ${Math.round(ms / 1000)} s`),
        ),
      );
      this.proc?.kill();
    }, ms);
    this.dog.unref();
  }

  private clearDog(): void {
    if (this.dog) clearTimeout(this.dog);
    this.dog = null;
  }

  private onBytes(chunk: Buffer): void {
    if (!this.current) {
      this.reset(new HandlerError('io', 'smbclient wrote bytes nobody asked for'));
      return;
    }
    this.chunks.push(chunk);
    this.received += chunk.length;
    this.arm(this.idleMs);
    this.settleBytes();
  }

  private settleBytes(): void {
    if (this.expect === null) return;
    if (this.received > this.expect) {
      this.reset(
        new HandlerError('io', `smbclient sent ${this.received} bytes for a ${this.expect}-byte file`),
      );
      return;
    }
    if (this.received === this.expect) {
      const cur = this.current!;
      const bytes = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.received);
      this.current = null;
      this.chunks = [];
      this.clearDog();
      cur.resolve(bytes);
      this.next();
    }
  }

  private onLine(line: string): void {
    const ev = classifyGetLine(line);
    const cur = this.current;
    if (!ev || !cur || this.expect !== null) return;
    if (ev.kind === 'connect') {
      this.failAll(this.note(new SessionError(ev.error.code, ev.error.message)));
      return;
    }
    if (ev.kind === 'rate') return;
    if (ev.kind === 'failed') {
      if (ev.remote !== undefined && ev.remote !== cur.remote) return;
      if (this.received) this.reset(this.note(ev.error));
      else this.finishWith(this.note(ev.error));
      return;
    }
    if (ev.remote !== cur.remote || ev.local !== '-') {
      this.reset(new HandlerError('io', `smbclient output out of step: ${line}`));
      return;
    }
    if (ev.state === 'failed') {
      // broken off in the middle: some bytes may still be on their way
      this.reset(this.note(ev.error!));
      return;
    }
    // `ok`, or `started` after a close warning: the bytes are complete once N have arrived
    this.expect = ev.size;
    this.arm(2000);
    this.settleBytes();
  }

  private finishWith(err: HandlerError): void {
    const cur = this.current;
    this.current = null;
    this.clearDog();
    cur?.reject(err);
    this.next();
  }

  failAll(err: HandlerError): void {
    const all = [...(this.current ? [this.current] : []), ...this.waiting.splice(0)];
    this.current = null;
    this.clearDog();
    for (const g of all) g.reject(err);
  }

  close(): void {
    this.clearDog();
    this.proc?.endInput();
  }
}
