import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../index/source-store.js';
import type { ContentSource, CrawlRule } from '../../model.js';
import { credentialIdFor } from './smb-handler.js';

const source = (rules: CrawlRule[], smb?: Record<string, unknown>): ContentSource => ({
  id: 1,
  name: 's',
  kind: 'smb',
  startAddresses: ['smb://fs/public/reports%20Q1'],
  displayAddresses: ['\\\\fs\\public\\reports Q1'],
  rules,
  settings: { ...defaultSettings('smb'), ...(smb ? { smb } : {}) },
  paused: false,
  createdAt: 0,
});
const rule = (syntax: CrawlRule['syntax'], pattern: string, credentialId?: string): CrawlRule => ({
  action: 'include',
  syntax,
  pattern,
  credentialId,
});

describe('credentialIdFor', () => {
  const url = 'smb://fs/public/reports%20Q1';
  it('takes the first rule with a credential that matches the start address as rules see it', () => {
    const s = source([
      rule('prefix', 'smb://other/'),
      rule('prefix', 'smb://other/x', 'wrong'),
      rule('prefix', 'smb://fs/public/reports Q1', 'crawl'),
      rule('glob', '**', 'later'),
    ]);
    expect(credentialIdFor(s, url)).toBe('crawl');
    expect(credentialIdFor(source([rule('glob', 'smb://fs/public/**', 'g')]), url)).toBe('g');
    expect(credentialIdFor(source([rule('regex', '^smb://fs/', 'r')]), url)).toBe('r');
  });
  it('prefers settings.smb.credentialId, falls back to any rule with one, else none', () => {
    expect(
      credentialIdFor(source([rule('prefix', 'smb://fs/', 'rule')], { credentialId: 'explicit' }), url),
    ).toBe('explicit');
    expect(credentialIdFor(source([rule('prefix', 'smb://elsewhere/', 'only')]), url)).toBe('only');
    expect(credentialIdFor(source([rule('prefix', 'smb://fs/')]), url)).toBeNull();
  });
});
