import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A real nginx on 127.0.0.1 serving a folder, with a private prefix, config, pid and logs in a temp
 * dir (`daemon off`, killed by `stop()`). The access log records status and conditional headers
 * per request so tests can prove 304s from the server's side.
 */

const CANDIDATES = [
  '/usr/sbin/nginx',
  '/usr/local/sbin/nginx',
  '/usr/local/nginx/sbin/nginx',
  '/usr/bin/nginx',
];

/** Path of the nginx binary (`TRAWL_NGINX` overrides; `none` = pretend it is missing), or null. */
export function findNginx(): string | null {
  const forced = process.env.TRAWL_NGINX;
  if (forced === 'none') return null;
  for (const c of forced ? [forced] : CANDIDATES) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return c;
    } catch {}
  }
  return null;
}

/** One access-log line (nginx writes `"` inside values as `\x22`; it is restored). */
export interface AccessEntry {
  status: number;
  method: string;
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  bytes: number;
}

/** A running nginx. */
export interface NginxServer {
  port: number;
  origin: string;
  root: string;
  /** Access-log lines so far (nginx writes them unbuffered). */
  accessLog(): AccessEntry[];
  /** Forget the access log so far. */
  clearAccessLog(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function waitForPort(
  port: number,
  child: ChildProcess,
  errorLog: string,
  timeoutMs = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  let log = '';
  try {
    log = fs.readFileSync(errorLog, 'utf8');
  } catch {}
  throw new Error(`nginx did not start on 127.0.0.1:${port}: ${log.trim() || `exit code ${child.exitCode}`}`);
}

/** Start nginx serving `root` (static files, ETag and Last-Modified on, keep-alive). */
export async function startNginx(root: string, opts: { binary?: string } = {}): Promise<NginxServer> {
  const binary = opts.binary ?? findNginx();
  if (!binary) throw new Error('nginx is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-nginx-'));
  for (const d of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi', 'logs'])
    fs.mkdirSync(path.join(dir, d));
  const port = await freePort();
  const accessLog = path.join(dir, 'access.log');
  const errorLog = path.join(dir, 'error.log');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const conf = `
${isRoot ? 'user root;' : ''}
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLog} warn;
events { worker_connections 1024; }
http {
  types { text/html html htm; text/plain txt; application/pdf pdf; text/css css; image/png png; }
  default_type application/octet-stream;
  log_format trawl '$status $request_method "$request_uri" "$http_if_none_match" "$http_if_modified_since" $body_bytes_sent';
  access_log ${accessLog} trawl;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  sendfile on;
  keepalive_requests 100000;
  keepalive_timeout 30s;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    location / { try_files $uri $uri/ =404; }
  }
}
`;
  const confFile = path.join(dir, 'nginx.conf');
  fs.writeFileSync(confFile, conf);
  const child = spawn(binary, ['-p', dir, '-c', confFile, '-e', errorLog], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitForPort(port, child, errorLog);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}${stderr ? ` (${stderr.trim()})` : ''}`, { cause: e });
  }
  const parse = (raw: string): AccessEntry | null => {
    const line = raw.replace(/\\x22/g, "'");
    const m = /^(\d+) (\S+) "([^"]*)" "([^"]*)" "([^"]*)" (\d+)$/.exec(line);
    if (!m) return null;
    return {
      status: Number(m[1]),
      method: m[2],
      path: m[3],
      ifNoneMatch: m[4] === '-' ? null : m[4].replace(/'/g, '"'),
      ifModifiedSince: m[5] === '-' ? null : m[5],
      bytes: Number(m[6]),
    };
  };
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    root,
    accessLog: () => {
      let text = '';
      try {
        text = fs.readFileSync(accessLog, 'utf8');
      } catch {}
      return text
        .split('\n')
        .map(parse)
        .filter((e): e is AccessEntry => e !== null);
    },
    clearAccessLog: () => fs.writeFileSync(accessLog, ''),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
