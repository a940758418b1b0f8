/**
 * `trawl source add <folder> --smb-share <url> [--mount-root P] [--user DOMAIN\name]`: a folder
 * where an SMB share is mounted, told which share it is. Runs the real CLI (through tsx, so the
 * sources are what runs); no server is needed to add the source.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '../../bin/trawl.mjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-mount-cli-'));
const dataDir = path.join(work, 'data');
const mnt = path.join(work, 'mnt');
fs.mkdirSync(path.join(mnt, 'reports'), { recursive: true });

function trawl(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, '--data-dir', dataDir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TRAWL_DATA_DIR: '', TRAWL_USE_TSX: '1', TRAWL_SMB_PASSWORD: '', ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const credentials = (): Record<string, unknown> => {
  const f = path.join(dataDir, 'credentials.json');
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, unknown>) : {};
};

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('trawl source add --smb-share', () => {
  it('adds a folder source with the share identity and stores the account like SMB sources', () => {
    const add = trawl(
      [
        'source',
        'add',
        path.join(mnt, 'reports'),
        '--name',
        'Reports',
        '--smb-share',
        '\\\\Files\\public\\reports',
        '--mount-root',
        path.join(mnt, 'reports'),
        '--user',
        'CORP\\crawler',
      ],
      { TRAWL_SMB_PASSWORD: 's3cret-pass' },
    );
    expect(add.err).toBe('');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/added source 1 "Reports" \(file\)/);
    const shown = trawl(['source', 'show', 'Reports']).out;
    expect(shown).not.toContain('s3cret-pass');
    const s = JSON.parse(shown) as { kind: string; rules: unknown[]; settings: { smb: unknown } };
    expect(s.kind).toBe('file');
    expect(s.rules).toEqual([]);
    expect(s.settings.smb).toEqual({
      shareIdentity: '\\\\Files\\public\\reports',
      mountRoot: path.join(mnt, 'reports'),
      credentialId: 'smb-files-crawler',
    });
    expect(credentials()['smb-files-crawler']).toEqual({
      user: 'crawler',
      password: 's3cret-pass',
      domain: 'CORP',
    });
  });

  it('refuses bad combinations with one line each, storing no credential', () => {
    const cases: [string[], RegExp][] = [
      [[path.join(mnt, 'reports'), '--smb-share', 'http://files/public'], /not an SMB address/],
      [
        [
          path.join(mnt, 'reports'),
          '--smb-share',
          'smb://files/public',
          '--mount-root',
          path.join(mnt, 'other'),
        ],
        /is not under the mount root/,
      ],
      [['smb://files/public', '--smb-share', 'smb://files/public'], /--smb-share is for a local folder/],
      [[path.join(mnt, 'reports'), '--mount-root', mnt], /--mount-root goes with --smb-share/],
      [[path.join(mnt, 'reports'), '--user', 'bob'], /--user is for SMB sources/],
    ];
    for (const [args, why] of cases) {
      const r = trawl(['source', 'add', ...args, '--user', 'someone'], { TRAWL_SMB_PASSWORD: 'pw' });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err, args.join(' ')).toMatch(why);
    }
    expect(Object.keys(credentials())).toEqual(['smb-files-crawler']);
    expect(JSON.parse(trawl(['source', 'list', '--json']).out)).toHaveLength(1);
  });
});
