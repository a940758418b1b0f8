import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../index/source-store.js';
import type { ContentSource } from '../../model.js';
import { mountedShareOf, mountedShareProblem, sharePathOf } from './mounted-share-settings.js';

const root = path.resolve('/mnt/reports');
const source = (
  smb: Record<string, unknown> | undefined,
  starts = [root],
  kind: ContentSource['kind'] = 'file',
) => ({
  kind,
  startAddresses: starts.map((p) => (kind === 'file' ? pathToFileURL(p).href : p)),
  settings: { ...defaultSettings(kind), smb },
});

describe('mounted-share settings', () => {
  it('is absent without settings.smb.shareIdentity', () => {
    expect(mountedShareOf(source(undefined))).toBeNull();
    expect(mountedShareOf(source({ credentialId: 'x' }))).toBeNull();
  });

  it('normalises both spellings and defaults the mount root to the only start folder', () => {
    const url = mountedShareOf(source({ shareIdentity: 'smb://FileServer:4455/Public/Q%204' }));
    expect(url).toEqual({
      location: { host: 'fileserver', port: 4455, share: 'Public', path: ['Q 4'] },
      url: 'smb://fileserver:4455/Public/Q%204',
      mountRoot: root,
      credentialId: null,
      checkTraverse: true,
    });
    const unc = mountedShareOf(source({ shareIdentity: '\\\\fileserver\\Public\\Q 4', credentialId: 'c' }));
    expect(unc?.url).toBe('smb://fileserver/Public/Q%204');
    expect(unc?.credentialId).toBe('c');
  });

  it('takes an explicit mount root above the start folders', () => {
    const m = mountedShareOf(
      source({ shareIdentity: 'smb://s/share', mountRoot: root, checkTraverse: false }, [
        path.join(root, 'a'),
        path.join(root, 'b', 'c'),
      ]),
    );
    expect(m?.mountRoot).toBe(root);
    expect(m?.checkTraverse).toBe(false);
    expect(sharePathOf(m!, path.join(root, 'b', 'c', 'Ünï (1).txt'))).toEqual(['b', 'c', 'Ünï (1).txt']);
    expect(sharePathOf(m!, root)).toEqual([]);
    expect(() => sharePathOf(m!, path.resolve('/mnt/other/x'))).toThrow(/not under the mount root/);
  });

  it('maps below the share folder the mount root shows', () => {
    const m = mountedShareOf(source({ shareIdentity: 'smb://s/share/reports/2024' }))!;
    expect(sharePathOf(m, path.join(root, 'q1', 'x.txt'))).toEqual(['reports', '2024', 'q1', 'x.txt']);
  });

  it('explains each invalid setting', () => {
    const cases: [Record<string, unknown>, RegExp, string[]?][] = [
      [{ shareIdentity: 'http://s/share' }, /not an SMB address/],
      [{ shareIdentity: 'smb://s' }, /needs a server and a share/],
      [{ shareIdentity: '' }, /must be an SMB address/],
      [{ shareIdentity: 42 }, /must be an SMB address/],
      [{ shareIdentity: 'smb://s/share/../x' }, /must not contain \. or \.\./],
      [{ shareIdentity: 'smb://s/share', mountRoot: 'mnt/x' }, /mountRoot must be an absolute local path/],
      [{ shareIdentity: 'smb://s/share', mountRoot: path.join(root, 'sub') }, /is not under the mount root/],
      [
        { shareIdentity: 'smb://s/share' },
        /mountRoot is needed/,
        [path.join(root, 'a'), path.join(root, 'b')],
      ],
      [{ shareIdentity: 'smb://s/share', credentialId: '' }, /credentialId must be the id/],
      [{ shareIdentity: 'smb://s/share', checkTraverse: 'no' }, /checkTraverse must be true or false/],
      [{ shareIdentity: 'smb://s/share', captureAcls: false }, /settings\.smb\.captureAcls is not a setting/],
    ];
    for (const [smb, why, starts] of cases)
      expect(mountedShareProblem(source(smb, starts)), JSON.stringify(smb)).toMatch(why);
    expect(mountedShareProblem(source({ shareIdentity: 'smb://s/share' }, ['smb://s/share'], 'smb'))).toMatch(
      /for folder sources/,
    );
    expect(mountedShareProblem(source({ shareIdentity: 'smb://s/share' }))).toBeNull();
  });
});
