import { describe, expect, it } from 'vitest';
import { normalizeAddress } from '../../index/source-store.js';
import {
  parseSmbAddress,
  shareKey,
  smbclientPath,
  smbDisplay,
  smbRuleTarget,
  smbService,
  smbUrl,
} from './smb-address.js';

describe('SMB addresses', () => {
  it('reads both spellings into one location', () => {
    const a = parseSmbAddress('smb://FileServer/public/reports/2024%20Q1');
    const b = parseSmbAddress('\\\\fileserver\\public\\reports\\2024 Q1');
    expect(a).toEqual({ host: 'fileserver', port: null, share: 'public', path: ['reports', '2024 Q1'] });
    expect(b).toEqual(a);
  });
  it('keeps ports and IPv6 literals', () => {
    expect(parseSmbAddress('smb://127.0.0.1:44545/docs')).toEqual({
      host: '127.0.0.1',
      port: 44545,
      share: 'docs',
      path: [],
    });
    expect(parseSmbAddress('smb://[::1]:445/docs/a')).toMatchObject({ host: '::1', port: 445, path: ['a'] });
    expect(smbUrl(parseSmbAddress('smb://[::1]:445/docs/a'))).toBe('smb://[::1]:445/docs/a');
  });
  it('writes canonical URLs the source store agrees with, and both display spellings', () => {
    for (const input of ['\\\\Host\\Share\\Ünï code\\[x] (1).txt', 'smb://host:1445/share/日本語/文書.txt']) {
      const loc = parseSmbAddress(input);
      expect(smbUrl(loc)).toBe(normalizeAddress(input).url);
      expect(parseSmbAddress(smbUrl(loc))).toEqual(loc);
    }
    const loc = parseSmbAddress('smb://host/share/a b/c');
    expect(smbDisplay(loc, 'unc')).toBe('\\\\host\\share\\a b\\c');
    expect(smbDisplay(loc, 'url')).toBe('smb://host/share/a b/c');
    expect(smbService(loc)).toBe('//host/share');
    expect(shareKey(loc)).toBe(shareKey(parseSmbAddress('\\\\HOST\\Share\\x')));
  });
  it('refuses addresses without a share and names smbclient cannot take', () => {
    expect(() => parseSmbAddress('smb://host')).toThrow(/server and a share/);
    expect(() => parseSmbAddress('http://host/share')).toThrow(/not an SMB address/);
    expect(() => parseSmbAddress('smb://host:99999/share')).toThrow(/port/);
    expect(smbclientPath(['a b', '[x]', '.dot', 'Ünï'])).toBe('a b\\[x]\\.dot\\Ünï');
    for (const bad of ['a"b', 'a*', 'q?', 'a\\b', '..', 'tab\there'])
      expect(() => smbclientPath([bad])).toThrow();
  });
  it('gives rules fully decoded targets', () => {
    const url = smbUrl(parseSmbAddress('\\\\h\\s\\$RECYCLE.BIN\\#1, a+b=c;d@e'));
    expect(decodeURI(url)).toContain('%24RECYCLE.BIN');
    expect(smbRuleTarget(url)).toBe('smb://h/s/$RECYCLE.BIN/#1, a+b=c;d@e');
    expect(smbRuleTarget('file:///x')).toBe('file:///x');
  });
});
