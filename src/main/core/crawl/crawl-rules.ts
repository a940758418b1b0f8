import picomatch from 'picomatch';
import type { ContentSource, CrawlRule } from '../model.js';

/** Folder names no desktop index wants, anywhere in a path: VCS metadata, dependency trees, caches, trash. */
const EXCLUDED_FOLDERS = [
  '.git',
  '.svn',
  '.hg',
  '.bzr',
  'CVS',
  'node_modules',
  'bower_components',
  '__pycache__',
  '.cache',
  '.npm',
  '.gradle',
  '.venv',
  '.tox',
  '.Trash',
  '$RECYCLE.BIN',
  'System Volume Information',
];
/** Nested folders excluded as a pair of names. */
const EXCLUDED_NESTED = ['.yarn/cache', '.m2/repository'];
/** File names no desktop index wants: OS litter, editor swap and lock files, temp files. */
const EXCLUDED_FILES = ['.DS_Store', 'Thumbs.db', 'desktop.ini', '*.tmp', '*.swp', '~$*', '.~lock.*'];

/** The built-in excludes as globs (for display and documentation). */
export const DEFAULT_EXCLUDES: readonly string[] = [
  ...EXCLUDED_FOLDERS.map((d) => `**/${d}/**`),
  '**/.Trash-*/**',
  ...EXCLUDED_NESTED.map((d) => `**/${d}/**`),
  ...EXCLUDED_FILES.map((f) => `**/${f}`),
];

const nocase = process.platform === 'win32';
const excludedFolderSet = new Set(EXCLUDED_FOLDERS.map((d) => (nocase ? d.toLowerCase() : d)));
const excludedNested = new RegExp(
  `/(?:${EXCLUDED_NESTED.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:/|$)`,
  nocase ? 'i' : '',
);
const excludedFileGlob = picomatch(EXCLUDED_FILES, { dot: true, nocase });
const excludedFileNames = new Set(
  EXCLUDED_FILES.filter((f) => !/[*?[]/.test(f)).map((f) => (nocase ? f.toLowerCase() : f)),
);

/** The file-name excludes; a cheap pre-check leaves the glob to names that could match one. */
function excludedFile(name: string): boolean {
  const n = nocase ? name.toLowerCase() : name;
  if (excludedFileNames.has(n)) return true;
  const candidate = n.endsWith('.tmp') || n.endsWith('.swp') || n.startsWith('~$') || n.startsWith('.~lock.');
  return candidate && excludedFileGlob(name);
}

/** Whether a folder (absolute POSIX-style path) is excluded by its own name or one above it. */
function folderExcluded(folder: string): boolean {
  for (const s of folder.split('/')) {
    const seg = nocase ? s.toLowerCase() : s;
    if (seg && (excludedFolderSet.has(seg) || seg.startsWith(nocase ? '.trash-' : '.Trash-'))) return true;
  }
  return excludedNested.test(folder);
}

/** The last folder asked about: the files of one listing share it. */
const lastFolder = { path: '\0', excluded: false };

/**
 * Whether the built-in excludes leave out `target` (an absolute POSIX-style path): one of its
 * folders (for a container: itself included) has an excluded name, or the file's name is excluded.
 * Set lookups over the path's segments, not a glob per pattern: this runs for every item, and a
 * file's folders are looked at once per listing, not once per file.
 */
export function defaultExcluded(target: string, isContainer: boolean): boolean {
  if (isContainer) return folderExcluded(target);
  const slash = target.lastIndexOf('/');
  const folder = target.slice(0, slash);
  if (folder !== lastFolder.path) {
    lastFolder.path = folder;
    lastFolder.excluded = folderExcluded(folder);
  }
  return lastFolder.excluded || excludedFile(target.slice(slash + 1));
}

/** The outcome of testing one item against a source's rules and settings. */
export interface RuleDecision {
  included: boolean;
  /** The rule that decided, when one did. */
  rule: CrawlRule | null;
  /** Human-readable reason, e.g. `excluded by rule 2 (**\/*.tmp)` or `hidden file`. */
  reason: string;
}

/** The decision for most items: one shared (frozen) object, not one per item. */
const NO_RULE_MATCHED: RuleDecision = Object.freeze({
  included: true,
  rule: null,
  reason: 'no rule matched',
});

interface CompiledRule {
  rule: CrawlRule;
  index: number;
  test: (target: string, rel: string, base: string) => boolean;
  /** For include rules: could this rule match something below the container? */
  couldMatchBelow: (container: string, rel: string) => boolean;
}

function compile(rule: CrawlRule, index: number): CompiledRule {
  if (rule.syntax === 'regex') {
    const re = new RegExp(rule.pattern);
    return { rule, index, test: (t, r) => re.test(t) || re.test(r), couldMatchBelow: () => true };
  }
  if (rule.syntax === 'prefix') {
    const p = rule.pattern;
    return {
      rule,
      index,
      test: (t) => t.startsWith(p),
      couldMatchBelow: (c) => p.startsWith(c.endsWith('/') ? c : `${c}/`) || c.startsWith(p),
    };
  }
  const hasSlash = rule.pattern.includes('/');
  const isMatch = picomatch(rule.pattern, {
    dot: true,
    nocase: process.platform === 'win32',
    basename: !hasSlash,
  });
  const scan = picomatch.scan(rule.pattern);
  const staticBase = scan.base;
  return {
    rule,
    index,
    test: (t, r, b) => isMatch(t) || (r !== '' && isMatch(r)) || (!hasSlash && isMatch(b)),
    couldMatchBelow: (c, r) => {
      if (!hasSlash || rule.pattern.includes('**')) return true;
      if (!staticBase) return true;
      const base = staticBase.replace(/\/+$/, '');
      const target = base.startsWith('/') ? c : r;
      return base.startsWith(target) || target.startsWith(base) || target === '';
    },
  };
}

/**
 * Decides which items of a source are crawled: ordered crawl rules (first match wins), then the
 * built-in excludes, hidden files and the source's type allow/deny lists.
 *
 * Targets are absolute POSIX-style paths (files, SMB paths) or URLs (web sources); a pattern
 * without `/` is matched against the base name, a relative pattern against the path below the
 * start address. Containers are pruned only when they cannot contain an included item. When a
 * source has include rules, a file that matches no rule at all is left out ("index only *.md").
 */
export class RuleMatcher {
  private readonly rules: CompiledRule[];
  private readonly defaults: boolean;
  private readonly hasIncludes: boolean;

  constructor(private readonly source: Pick<ContentSource, 'rules' | 'settings' | 'kind'>) {
    this.rules = source.rules.map(compile);
    this.hasIncludes = source.rules.some((r) => r.action === 'include');
    this.defaults = source.settings.defaultExcludes && source.kind !== 'http';
  }

  /**
   * Decide for one item. `target` is its absolute path or URL, `root` the start address it was
   * reached from (same form), `isContainer` whether it is a folder.
   */
  decide(target: string, root: string, isContainer: boolean): RuleDecision {
    const base = target.endsWith('/')
      ? target.slice(target.lastIndexOf('/', target.length - 2) + 1, -1)
      : target.slice(target.lastIndexOf('/') + 1);
    if (this.rules.length > 0) {
      const decided = this.byRules(target, root, base, isContainer);
      if (decided) return decided;
    }
    const trimmed = target.endsWith('/') ? target.replace(/\/+$/, '') : target;
    if (this.defaults && defaultExcluded(trimmed, isContainer)) {
      return { included: false, rule: null, reason: 'default exclude' };
    }
    if (this.source.kind !== 'http') {
      if (!this.source.settings.includeHidden && base.startsWith('.') && target !== root) {
        return { included: false, rule: null, reason: isContainer ? 'hidden folder' : 'hidden file' };
      }
      const { allowTypes, denyTypes } = this.source.settings;
      if (!isContainer && (denyTypes.length > 0 || allowTypes.length > 0)) {
        const dot = base.lastIndexOf('.');
        const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
        if (denyTypes.includes(ext)) return { included: false, rule: null, reason: `type .${ext} denied` };
        if (allowTypes.length && !allowTypes.includes(ext))
          return { included: false, rule: null, reason: `type .${ext || '(none)'} not allowed` };
      }
    }
    if (!isContainer && this.hasIncludes) {
      return { included: false, rule: null, reason: 'matched by no include rule' };
    }
    return NO_RULE_MATCHED;
  }

  /** The first rule matching the item, as a decision; null when none does. */
  private byRules(target: string, root: string, base: string, isContainer: boolean): RuleDecision | null {
    const rel = target.startsWith(root) ? target.slice(root.length).replace(/^\/+/, '') : '';
    const probe = isContainer ? `${target.replace(/\/$/, '')}/\u0000` : target;
    const relProbe = isContainer && rel ? `${rel}/\u0000` : rel;
    for (const r of this.rules) {
      const matched = isContainer
        ? r.rule.action === 'include'
          ? r.test(target, rel, base) || r.couldMatchBelow(target, rel)
          : r.test(target, rel, base) || r.test(probe, relProbe, '')
        : r.test(target, rel, base);
      if (matched) {
        return r.rule.action === 'include'
          ? { included: true, rule: r.rule, reason: `included by rule ${r.index + 1} (${r.rule.pattern})` }
          : { included: false, rule: r.rule, reason: `excluded by rule ${r.index + 1} (${r.rule.pattern})` };
      }
    }
    return null;
  }
}
