import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_EXCLUDES, defaultExcluded, RuleMatcher } from './crawl-rules.js';
import { defaultSettings } from '../index/source-store.js';

const folderGlobs = picomatch(
  DEFAULT_EXCLUDES.filter((g) => g.endsWith('/**')),
  { dot: true },
);
const fileGlobs = picomatch(
  DEFAULT_EXCLUDES.filter((g) => !g.endsWith('/**')),
  { dot: true },
);
/**
 * The reference, from the glob form: a folder is excluded when what it contains would be; a file
 * when its folder's contents are, or its name is (a *file* named like a folder, e.g. `CVS`, is not).
 */
const reference = (target: string, isContainer: boolean) => {
  if (isContainer) return folderGlobs(`${target}/x`);
  const dir = path.posix.dirname(target);
  return folderGlobs(`${dir === '/' ? '' : dir}/x`) || fileGlobs(target);
};

describe('built-in excludes', () => {
  it('agree with their glob form on generated paths', () => {
    const seg = fc.constantFrom(
      'a',
      'docs',
      '.git',
      'node_modules',
      '.Trash-1000',
      '.trash-1000',
      '.yarn',
      'cache',
      '.m2',
      'repository',
      'x.tmp',
      '~$doc.docx',
      '.DS_Store',
      'CVS',
      '.hidden',
      'note.txt',
    );
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 6 }), fc.boolean(), (segs, isContainer) => {
        const target = `/${segs.join('/')}`;
        expect(defaultExcluded(target, isContainer)).toBe(reference(target, isContainer));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('RuleMatcher', () => {
  const source = (rules: ConstructorParameters<typeof RuleMatcher>[0]['rules'], settings = {}) => ({
    kind: 'file' as const,
    rules,
    settings: { ...defaultSettings('file'), ...settings },
  });

  it('lets the first matching rule decide, before the built-in excludes', () => {
    const m = new RuleMatcher(
      source([
        { action: 'include', syntax: 'glob', pattern: '**/node_modules/keep/**' },
        { action: 'exclude', syntax: 'glob', pattern: '*.log' },
      ]),
    );
    expect(m.decide('/r/node_modules/keep/a.js', '/r', false)).toMatchObject({ included: true });
    expect(m.decide('/r/node_modules/keep', '/r', true)).toMatchObject({ included: true });
    expect(m.decide('/r/sub/app.log', '/r', false)).toMatchObject({
      included: false,
      reason: 'excluded by rule 2 (*.log)',
    });
  });

  it('with include rules, leaves out files no rule matches but still enters folders', () => {
    const m = new RuleMatcher(source([{ action: 'include', syntax: 'glob', pattern: '*.md' }]));
    expect(m.decide('/r/a/readme.md', '/r', false).included).toBe(true);
    expect(m.decide('/r/a/readme.txt', '/r', false)).toMatchObject({
      included: false,
      reason: 'matched by no include rule',
    });
    expect(m.decide('/r/a', '/r', true).included).toBe(true);
  });

  it('prunes a folder an exclude rule covers, and keeps one an include rule reaches into', () => {
    const m = new RuleMatcher(
      source([
        { action: 'include', syntax: 'prefix', pattern: '/r/a/keep/' },
        { action: 'exclude', syntax: 'glob', pattern: '/r/a/**' },
      ]),
    );
    expect(m.decide('/r/a', '/r', true).included).toBe(true);
    expect(m.decide('/r/a/other', '/r', true).included).toBe(false);
    expect(m.decide('/r/a/keep', '/r', true).included).toBe(true);
  });

  it('applies hidden-file and type settings, and regex rules', () => {
    const m = new RuleMatcher(
      source([{ action: 'exclude', syntax: 'regex', pattern: '/draft-\\d+\\.' }], { denyTypes: ['bak'] }),
    );
    expect(m.decide('/r/.env', '/r', false)).toMatchObject({ included: false, reason: 'hidden file' });
    expect(m.decide('/r/x.bak', '/r', false)).toMatchObject({ included: false, reason: 'type .bak denied' });
    expect(m.decide('/r/draft-12.txt', '/r', false).included).toBe(false);
    expect(m.decide('/r/draft-x.txt', '/r', false).included).toBe(true);
    const hidden = new RuleMatcher(source([], { includeHidden: true, defaultExcludes: false }));
    expect(hidden.decide('/r/.env', '/r', false).included).toBe(true);
    expect(hidden.decide('/r/.git', '/r', true).included).toBe(true);
  });
});
