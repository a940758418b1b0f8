/**
 * robots.txt parsing and matching (RFC 9309, with the Google extensions that its reference
 * parser, google/robotstxt, applies). Pure: no I/O. Fetching and caching live in `robots-cache.ts`.
 *
 * Semantics, per RFC 9309 and google/robotstxt `robots.cc`:
 * - Lines end at LF, CR or CRLF; `#` starts a comment; lines are cut at 16,663 octets.
 * - Consecutive `user-agent` lines form one group; a group ends at the first `user-agent` line after
 *   an `allow`, `disallow` or `crawl-delay` line. Other lines (`sitemap`, unknown keys) do not end a
 *   group. Rules before the first `user-agent` line are ignored.
 * - A group's agent token is cut at its first character that is not a letter, `-` or `_`; the
 *   crawler's product token is compared case-insensitively with it. `*` (alone or followed by
 *   whitespace) names the global group. Every group naming the crawler is merged; the global groups
 *   apply only when none names it.
 * - The longest matching pattern (in octets, `*` included) decides; on a tie `allow` wins; an empty
 *   pattern matches nothing. `*` matches any run of characters, a final `$` anchors the end.
 * - Patterns are percent-encoded where they hold non-ASCII characters and `%xx` escapes are
 *   upper-cased; URLs are matched as given (callers pass the URL's encoded form).
 * - Google extensions also applied: a missing `:` between key and value is accepted when the line
 *   holds exactly two words; common misspellings of the keys are accepted; `allow: …/index.html`
 *   also allows the directory itself (`…/$`).
 */

/** Longest line the parser keeps (google/robotstxt: 2083 × 8 − 1 octets). */
const MAX_LINE_OCTETS = 2083 * 8 - 1;

/** One allow/disallow line of a group. */
export interface RobotsRule {
  allow: boolean;
  /** Normalised pattern (percent-encoded non-ASCII, upper-case escapes). */
  pattern: string;
}

/** One group: the agents it names and its rules. */
export interface RobotsGroup {
  /** Agent tokens, lowercase; `*` for the global group. */
  agents: string[];
  rules: RobotsRule[];
  /** `Crawl-delay` in seconds, when the group sets a valid one. */
  crawlDelay?: number;
}

/** A parsed robots.txt: its groups and the sitemaps it names. */
export interface RobotsTxt {
  groups: RobotsGroup[];
  sitemaps: string[];
}

/** The rules that apply to one crawler: decide per URL, plus its Crawl-delay. */
export interface AgentRules {
  /** True when `url` (an absolute URL, or a path starting with `/`) may be fetched. */
  isAllowed(url: string): boolean;
  /** Crawl-delay in seconds from the applicable group(s), when set. */
  readonly crawlDelay: number | undefined;
}

type Key = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'unknown';

const KEY_SPELLINGS: Record<string, Key> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  diasllow: 'disallow',
  disallaw: 'disallow',
  sitemap: 'sitemap',
  'site-map': 'sitemap',
  'crawl-delay': 'crawl-delay',
  crawldelay: 'crawl-delay',
};

/** Splits one (comment-free, trimmed) line into key and value, or undefined when it has neither. */
function splitLine(line: string): { key: string; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon >= 0) {
    const key = line.slice(0, colon).trim();
    if (!key) return undefined;
    return { key, value: line.slice(colon + 1).trim() };
  }
  // Google: a forgotten colon is accepted when the line is exactly two words.
  const m = /^(\S+)[ \t]+(\S+)$/.exec(line);
  return m ? { key: m[1], value: m[2] } : undefined;
}

/** `FooBot/1.2` → `foobot`: the agent token up to its first character not in [A-Za-z_-]. */
export function agentToken(value: string): string {
  const m = /^[A-Za-z_-]*/.exec(value);
  return (m ? m[0] : '').toLowerCase();
}

const HEX = /^[0-9a-fA-F]{2}$/;

/** Percent-encode non-ASCII characters (as UTF-8) and upper-case existing `%xx` escapes. */
export function normalizePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '%' && HEX.test(pattern.slice(i + 1, i + 3))) {
      out += `%${pattern.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (pattern.charCodeAt(i) > 0x7f) {
      const cp = pattern.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      i += ch.length - 1;
    } else out += c;
  }
  return out;
}

/** Upper-case `%xx` escapes of a URL path so they compare equal to normalised patterns. */
function normalizeEscapes(path: string): string {
  return path.includes('%') ? path.replace(/%[0-9a-fA-F]{2}/g, (e) => e.toUpperCase()) : path;
}

/** Cut a line at MAX_LINE_OCTETS octets of UTF-8. */
function clipLine(line: string): string {
  if (line.length * 3 <= MAX_LINE_OCTETS) return line;
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= MAX_LINE_OCTETS) return line;
  return bytes
    .subarray(0, MAX_LINE_OCTETS)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/**
 * Parse a robots.txt body. Never throws: whatever cannot be read as a rule is ignored, so garbage
 * yields a file with no groups (everything allowed).
 */
export function parseRobotsTxt(body: string): RobotsTxt {
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | null = null;
  let sawRule = false;
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = clipLine(hash >= 0 ? rawLine.slice(0, hash) : rawLine).trim();
    if (!line) continue;
    const kv = splitLine(line);
    if (!kv) continue;
    const key = KEY_SPELLINGS[kv.key.toLowerCase()] ?? 'unknown';
    switch (key) {
      case 'user-agent': {
        if (!current || sawRule) {
          current = { agents: [], rules: [] };
          groups.push(current);
          sawRule = false;
        }
        const global = kv.value === '*' || /^\*\s/.test(kv.value);
        current.agents.push(global ? '*' : agentToken(kv.value));
        break;
      }
      case 'allow':
      case 'disallow': {
        if (!current) break;
        sawRule = true;
        const pattern = normalizePattern(kv.value);
        current.rules.push({ allow: key === 'allow', pattern });
        if (key === 'allow') {
          // Google: allowing `…/index.htm(l)` allows the directory itself.
          const slash = pattern.lastIndexOf('/');
          if (slash >= 0 && pattern.slice(slash).startsWith('/index.htm')) {
            current.rules.push({ allow: true, pattern: `${pattern.slice(0, slash + 1)}$` });
          }
        }
        break;
      }
      case 'crawl-delay': {
        if (!current) break;
        // Unlike google/robotstxt (which ignores the key), Crawl-delay belongs to its group and
        // ends it, so `User-agent: *` + `Crawl-delay` + `User-agent: BadBot` + `Disallow: /` does
        // not disallow everything for every crawler.
        sawRule = true;
        const n = Number(kv.value);
        if (Number.isFinite(n) && n >= 0) current.crawlDelay = n;
        break;
      }
      case 'sitemap':
        if (kv.value) sitemaps.push(kv.value);
        break;
      default:
        break;
    }
  }
  return { groups, sitemaps };
}

/**
 * The path, parameters and query of a URL as robots.txt rules see them (google/robotstxt
 * `GetPathParamsQuery`): scheme and authority dropped, fragment dropped, `/` when empty.
 */
export function robotsPath(url: string): string {
  let searchStart = 0;
  if (url.length >= 2 && url[0] === '/' && url[1] === '/') searchStart = 2;
  const earlyPath = firstOf(url, '/?;', searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  if (protocolEnd < 0 || (earlyPath >= 0 && earlyPath < protocolEnd)) protocolEnd = searchStart;
  else protocolEnd += 3;
  const pathStart = firstOf(url, '/?;', protocolEnd);
  if (pathStart < 0) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash >= 0 && hash < pathStart) return '/';
  const path = url.slice(pathStart, hash >= 0 ? hash : url.length);
  return path[0] === '/' ? path : `/${path}`;
}

function firstOf(s: string, chars: string, from: number): number {
  for (let i = from; i < s.length; i++) if (chars.includes(s[i])) return i;
  return -1;
}

/**
 * Does `pattern` (with `*` and a final `$`) match `path` from its start? Linear in
 * |path| × |pattern|, no backtracking (google/robotstxt `Matches`).
 */
export function patternMatches(path: string, pattern: string): boolean {
  const n = path.length;
  const pos = new Int32Array(n + 1);
  let count = 1;
  pos[0] = 0;
  for (let p = 0; p < pattern.length; p++) {
    const c = pattern[p];
    if (c === '$' && p === pattern.length - 1) return pos[count - 1] === n;
    if (c === '*') {
      count = n - pos[0] + 1;
      for (let i = 1; i < count; i++) pos[i] = pos[i - 1] + 1;
    } else {
      let next = 0;
      for (let i = 0; i < count; i++) if (pos[i] < n && path[pos[i]] === c) pos[next++] = pos[i] + 1;
      count = next;
      if (count === 0) return false;
    }
  }
  return true;
}

/** Octet length of a normalised pattern (all ASCII after normalisation, so its length). */
function priority(pattern: string): number {
  return Buffer.byteLength(pattern, 'utf8');
}

/**
 * The rules of `robots` that apply to the crawler whose product token is `agent` (compared
 * verbatim, case-insensitively, with each group's agent token).
 */
export function rulesFor(robots: RobotsTxt, agent: string): AgentRules {
  const me = agent.toLowerCase();
  const specific = me && me !== '*' ? robots.groups.filter((g) => g.agents.includes(me)) : [];
  const applicable = specific.length ? specific : robots.groups.filter((g) => g.agents.includes('*'));
  const rules = applicable.flatMap((g) => g.rules).filter((r) => r.pattern.length > 0);
  const delays = applicable.map((g) => g.crawlDelay).filter((d): d is number => d !== undefined);
  return {
    crawlDelay: delays.length ? Math.max(...delays) : undefined,
    isAllowed(url: string): boolean {
      if (!rules.length) return true;
      const path = normalizeEscapes(robotsPath(url));
      let allow = -1;
      let disallow = -1;
      for (const r of rules) {
        const p = priority(r.pattern);
        if ((r.allow ? allow : disallow) >= p) continue;
        if (!patternMatches(path, r.pattern)) continue;
        if (r.allow) allow = p;
        else disallow = p;
      }
      return !(disallow > allow);
    },
  };
}

/** Rules that allow everything (robots.txt missing: 4xx). */
export const ALLOW_ALL: AgentRules = { isAllowed: () => true, crawlDelay: undefined };

/** Rules that disallow everything (robots.txt unavailable: 5xx or unreachable). */
export const DISALLOW_ALL: AgentRules = { isAllowed: () => false, crawlDelay: undefined };

/**
 * The product token to match robots.txt groups with, from a full User-Agent header value
 * (`TrawlBot/1.0 (+https://…)` → `TrawlBot`).
 */
export function productToken(userAgent: string): string {
  const m = /^[A-Za-z_-]+/.exec(userAgent.trim());
  return m ? m[0] : userAgent.trim();
}
