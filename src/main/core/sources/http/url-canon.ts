/**
 * URL canonicalisation for the crawl's "seen already?" set. The key is never fetched: pages are
 * fetched at the URL as found (minus fragment and credentials).
 */

/** Query parameters that carry a session, never content (compared lowercase). */
const SESSION_PARAMS = new Set([
  'jsessionid',
  'phpsessid',
  'sessionid',
  'session_id',
  'cfid',
  'cftoken',
  'sid',
]);

/** `sid` is only a session id when it looks like one (Heritrix: 32 alphanumerics). */
const SID_VALUE = /^[0-9a-z]{32}$/i;
const ASP_SESSION = /^aspsessionid[a-z]{8}$/i;

/** A session token in a path segment's parameters: `/a;jsessionid=ABC123`. */
const PATH_SESSION = /;(?:jsessionid|phpsessid|sessionid)=[^/?#;]*/gi;

/**
 * Parse an absolute http(s) URL, dropping the fragment and any `user:password@`.
 * Returns undefined for anything else.
 */
export function parseHttpUrl(raw: string, base?: string | URL): URL | undefined {
  let u: URL;
  try {
    u = new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  return u;
}

/** The URL to fetch and store for a link: as found, without fragment and credentials. */
export function fetchUrl(raw: string, base?: string | URL): string | undefined {
  return parseHttpUrl(raw, base)?.href;
}

/**
 * The seen-set key of a URL: scheme and host lowercased, default port dropped, fragment and
 * credentials dropped, session ids (`jsessionid`, `phpsessid`, `sid`=32 alphanumerics,
 * `ASPSESSIONIDxxxxxxxx`) stripped from path parameters and query, a trailing `?` or `&` dropped.
 * Path case and parameter order are kept (they can name different pages).
 * Returns undefined when the input is not an http(s) URL.
 */
export function canonicalKey(raw: string | URL): string | undefined {
  const u = typeof raw === 'string' ? parseHttpUrl(raw) : new URL(raw.href);
  if (!u) return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  if (u.pathname.includes(';')) u.pathname = u.pathname.replace(PATH_SESSION, '');
  let query = u.search.startsWith('?') ? u.search.slice(1) : u.search;
  if (query) {
    const kept = query.split('&').filter((pair) => {
      if (!pair) return false;
      const eq = pair.indexOf('=');
      const name = (eq >= 0 ? pair.slice(0, eq) : pair).toLowerCase();
      const value = eq >= 0 ? pair.slice(eq + 1) : '';
      if (name === 'sid') return !SID_VALUE.test(value);
      if (SESSION_PARAMS.has(name)) return false;
      return !ASP_SESSION.test(name);
    });
    query = kept.join('&');
  }
  const base = `${u.protocol}//${u.host}${u.pathname}`;
  return query ? `${base}?${query}` : base;
}

/**
 * The host key politeness and robots.txt are kept per: `scheme://host:port` with the default port
 * made explicit.
 */
export function originKey(u: URL): string {
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${u.hostname}:${port}`;
}

/**
 * The site a URL belongs to for same-host scope: hostname plus a non-default port. `http://h/`
 * and `https://h/` are the same site (a site moving to https stays in scope).
 */
export function siteKey(u: URL): string {
  const defaultPort =
    u.port === '' ||
    (u.protocol === 'http:' && u.port === '80') ||
    (u.protocol === 'https:' && u.port === '443');
  return defaultPort ? u.hostname : `${u.hostname}:${u.port}`;
}
