import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../helpers/engine.js';

const BIN = path.resolve(__dirname, '../../bin/trawl.mjs');
const root = tempDir('trawl-cli-src-');
const dataDir = tempDir('trawl-cli-data-');
writeTree(root, {
  'docs/plan.txt': 'Project plan: migrate the search cluster before winter.',
  'docs/minutes.html':
    '<html><head><title>Weekly minutes</title></head><body>We discussed the search cluster migration.</body></html>',
  'docs/bad.pdf': '%PDF-1.4 this is not a pdf at all',
});

function trawl(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TRAWL_DATA_DIR: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('trawl CLI', () => {
  it('prints help without arguments and rejects unknown commands with one line', () => {
    const help = trawl();
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/source add <path-or-url>/);
    const bad = trawl('frobnicate');
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/unknown command 'frobnicate'/);
  });

  it('adds a source, crawls, searches, and reports updated 1 after one edit', () => {
    const add = trawl('source', 'add', root, '--name', 'Work', '--exclude', '**/*.bak');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/added source 1 "Work" \(file\)/);
    expect(trawl('source', 'list').out).toMatch(/Work\s+file/);

    const crawl = trawl('crawl');
    expect(crawl.code).toBe(0);
    expect(crawl.out.trim()).toMatch(
      /^added 2, updated 0, not modified 0, deleted 0, failed 1 in \d+\.\d+ s$/,
    );

    const res = trawl('search', 'search cluster', '--json');
    expect(res.code).toBe(0);
    const json = JSON.parse(res.out);
    expect(json.total).toBe(2);
    expect(Object.keys(json.hits[0]).sort()).toEqual(
      ['id', 'mtime', 'path', 'score', 'size', 'snippet', 'title', 'type', 'url'].sort(),
    );
    expect(json.hits.map((h: { title: string }) => h.title).sort()).toEqual(
      ['Weekly minutes', 'plan.txt'].sort(),
    );
    expect(json.hits.some((h: { snippet: string }) => /<mark>cluster<\/mark>/i.test(h.snippet))).toBe(true);

    const later = new Date(Date.now() + 10_000);
    fs.writeFileSync(path.join(root, 'docs/plan.txt'), 'Project plan: postponed until spring.');
    fs.utimesSync(path.join(root, 'docs/plan.txt'), later, later);
    const again = trawl('crawl');
    expect(again.out.trim()).toMatch(/^added 0, updated 1, not modified 2, deleted 0, failed 0 in/);
    expect(JSON.parse(trawl('search', 'spring', '--json').out).total).toBe(1);
  });

  it('shows failures in the log, status per source, and pages results', () => {
    const log = trawl('log', '--failed');
    expect(log.code).toBe(0);
    expect(log.out).toMatch(/failed .*bad\.pdf/);
    const status = trawl('status');
    expect(status.out).toMatch(/documents: 3/);
    expect(status.out).toMatch(/Work\s+\(file\)/);
    const page = JSON.parse(
      trawl('search', 'spring OR cluster', '--json', '--limit', '1', '--offset', '1').out,
    );
    expect(page.total).toBe(2);
    expect(page.hits).toHaveLength(1);
  });

  it('answers malformed queries and bad flags with a message, never a stack trace', () => {
    for (const q of ['"unbalanced', 'NEAR(', '^', 'OR OR', '-', '(((']) {
      const r = trawl('search', q);
      expect([0, 1]).toContain(r.code);
      expect(r.err).not.toMatch(/at .*\.ts:\d+|SqliteError|fts5/i);
      if (r.code === 1) expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    const bad = trawl('search', 'x', '--limit', 'many');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--limit/);
    const missing = trawl('crawl', '--source', '99');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no source 99/);
  });

  it('adds a website source with its crawl settings, and rejects invalid ones with a message', () => {
    const ok = trawl(
      'source',
      'add',
      'http://127.0.0.1:9/docs/',
      '--name',
      'Docs',
      '--profile',
      'fast',
      '--max-hops',
      '3',
      '--no-robots',
      '--proxy',
      'proxy.local:3128',
    );
    expect(ok.code).toBe(0);
    const shown = JSON.parse(trawl('source', 'show', 'Docs').out);
    expect(shown.kind).toBe('http');
    expect(shown.settings.http).toEqual({
      profile: 'fast',
      maxHops: 3,
      obeyRobots: false,
      proxy: { host: 'proxy.local', port: 3128 },
    });
    const bad = trawl('source', 'add', 'http://127.0.0.1:9/other/', '--profile', 'reckless');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/profile/);
    expect(trawl('source', 'list').out).not.toMatch(/other/);
    expect(trawl('source', 'remove', 'Docs').code).toBe(0);
  });

  it('takes an SMB password from the environment, never from argv, and stores it outside settings', () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        '--data-dir',
        dataDir,
        'source',
        'add',
        '\\\\files\\public\\reports',
        '--user',
        'CORP\\crawler',
        '--name',
        'Share',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, TRAWL_SMB_PASSWORD: 's3cret-pass' },
      },
    );
    expect(r.status).toBe(0);
    const shown = trawl('source', 'show', 'Share').out;
    expect(shown).not.toMatch(/s3cret-pass/);
    expect(JSON.parse(shown).rules[0]).toMatchObject({
      action: 'include',
      credentialId: 'smb-files-crawler',
    });
    const cred = path.join(dataDir, 'credentials.json');
    expect(fs.statSync(cred).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(cred, 'utf8'))['smb-files-crawler']).toEqual({
      user: 'crawler',
      password: 's3cret-pass',
      domain: 'CORP',
    });
    const noPw = trawl('source', 'add', 'smb://files/public', '--user', 'bob');
    expect(noPw.code).toBe(2);
    expect(noPw.err).toMatch(/TRAWL_SMB_PASSWORD/);
    expect(trawl('source', 'remove', 'Share').code).toBe(0);
  });

  it('removes a source and its documents', () => {
    expect(trawl('source', 'remove', 'Work').code).toBe(0);
    expect(JSON.parse(trawl('search', 'cluster', '--json').out).total).toBe(0);
  });
});

describe('credential rules', () => {
  it('record the user who saved them as the readers of what they fetch', () => {
    const add = trawl(
      'source',
      'add',
      'http://127.0.0.1:9/private/',
      '--name',
      'Private',
      '--auth',
      'http://127.0.0.1:9/private/=intranet',
    );
    expect(add.code).toBe(0);
    const rules = JSON.parse(trawl('source', 'show', 'Private').out).rules;
    expect(rules[0]).toMatchObject({
      syntax: 'prefix',
      credentialId: 'intranet',
      principals: [`uid:${process.getuid!()}`],
    });
    expect(trawl('source', 'remove', 'Private').code).toBe(0);
  });
});

describe('trawl live', () => {
  it('pauses, resumes and sets the CPU budget, persisted with the index; rejects bad values', () => {
    expect(trawl('live').out).toMatch(/live: on · CPU budget 100 %/);
    expect(trawl('live', 'set', 'cpu-budget', '0.25').out).toMatch(/CPU budget 25 %/);
    expect(trawl('live', 'pause').out).toMatch(/live: paused/);
    expect(trawl('live').out).toMatch(/live: paused · CPU budget 25 %/);
    expect(trawl('live', 'resume').out).toMatch(/live: on/);
    const bad = trawl('live', 'set', 'cpu-budget', '7');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/cpu-budget: invalid value/);
    expect(trawl('live', 'set', 'warp', '9').code).toBe(2);
  });
});
