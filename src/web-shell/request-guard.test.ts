import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openerCommand } from './open-target.js';
import { hostAllowed, newToken, originAllowed, tokenMatches } from './request-guard.js';
import { readStaticFile } from './static-files.js';

describe('request guard', () => {
  it('accepts only this server as Host', () => {
    expect(hostAllowed({ host: '127.0.0.1:4000' }, 4000)).toBe(true);
    expect(hostAllowed({ host: 'localhost:4000' }, 4000)).toBe(true);
    expect(hostAllowed({ host: 'LOCALHOST:4000' }, 4000)).toBe(true);
    for (const host of [
      '127.0.0.1:4001',
      'evil.example:4000',
      'evil.example',
      '127.0.0.1',
      'localhost.evil.example:4000',
      '',
    ]) {
      expect(hostAllowed({ host }, 4000), host).toBe(false);
    }
    expect(hostAllowed({}, 4000)).toBe(false);
  });

  it('rejects other origins and cross-site fetch metadata', () => {
    expect(originAllowed({}, 4000)).toBe(true);
    expect(originAllowed({ origin: 'http://127.0.0.1:4000', 'sec-fetch-site': 'same-origin' }, 4000)).toBe(
      true,
    );
    expect(originAllowed({ origin: 'http://localhost:4000' }, 4000)).toBe(true);
    expect(originAllowed({ origin: 'https://evil.example' }, 4000)).toBe(false);
    expect(originAllowed({ origin: 'null' }, 4000)).toBe(false);
    expect(originAllowed({ origin: 'http://127.0.0.1:4001' }, 4000)).toBe(false);
    expect(originAllowed({ 'sec-fetch-site': 'cross-site' }, 4000)).toBe(false);
    expect(originAllowed({ 'sec-fetch-site': 'same-site' }, 4000)).toBe(false);
  });

  it('matches the bearer token exactly', () => {
    const token = newToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(token);
    expect(tokenMatches({ authorization: `Bearer ${token}` }, token)).toBe(true);
    expect(tokenMatches({ authorization: `Bearer ${token}x` }, token)).toBe(false);
    expect(tokenMatches({ authorization: `Bearer ${token.slice(1)}` }, token)).toBe(false);
    expect(tokenMatches({ authorization: token }, token)).toBe(false);
    expect(tokenMatches({}, token)).toBe(false);
  });
});

describe('static files', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-static-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-outside-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(root, 'assets', 'app-1234.js'), 'console.log(1)');
  fs.writeFileSync(path.join(outside, 'secret.js'), 'secret');
  fs.symlinkSync(path.join(outside, 'secret.js'), path.join(root, 'assets', 'link.js'));
  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('serves files under the root with their type; page routes fall back to index.html', async () => {
    const js = await readStaticFile(root, '/assets/app-1234.js');
    expect(js?.contentType).toBe('text/javascript; charset=utf-8');
    expect(js?.immutable).toBe(true);
    expect((await readStaticFile(root, '/'))?.body.toString()).toContain('<title>t</title>');
    expect((await readStaticFile(root, '/sources'))?.contentType).toBe('text/html; charset=utf-8');
  });

  it('never leaves the root', async () => {
    const index = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
    for (const p of [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/hostname',
      '/assets/..%2f..%2f..%2fetc%2fpasswd',
    ]) {
      const file = await readStaticFile(root, p);
      expect(file === null || file.body.toString() === index, p).toBe(true);
    }
    fs.writeFileSync(path.join(outside, 'x.js'), 'outside');
    const rel = path.relative(root, path.join(outside, 'x.js'));
    for (const p of [
      `/${rel}`,
      `/assets/${encodeURIComponent('../' + rel)}`,
      '/assets/link.js',
      '/..\\..\\x.js',
      '/%00.js',
      '/%E0%A4%A',
    ]) {
      expect(await readStaticFile(root, p), p).toBe(null);
    }
  });
});

describe('opener', () => {
  it('passes the target as one argument per platform', () => {
    expect(openerCommand('/d/a b.pdf', 'open', 'linux')).toEqual(['xdg-open', ['/d/a b.pdf']]);
    expect(openerCommand('/d/a b.pdf', 'reveal', 'linux')).toEqual(['xdg-open', ['/d']]);
    expect(openerCommand('/d/a.pdf', 'reveal', 'darwin')).toEqual(['open', ['-R', '/d/a.pdf']]);
    expect(openerCommand('C:\\d\\a.pdf', 'reveal', 'win32')).toEqual([
      'explorer.exe',
      ['/select,C:\\d\\a.pdf'],
    ]);
  });
});
