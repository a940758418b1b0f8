import { UsageError, type Command } from '../command.js';
import type { SearchResponse, SortOrder } from '../../main/core/api-types.js';

function unmark(snippet: string, tty: boolean): string {
  const text = snippet
    .replace(/<mark>/g, tty ? '\x1b[1m' : '')
    .replace(/<\/mark>/g, tty ? '\x1b[22m' : '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  // Indexed content is untrusted: never pass control characters through to the terminal.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g, ' ');
}

const VALUE_FLAGS = new Set(['--limit', '--offset', '--sort', '--daemon']);

/**
 * Search flags are few and known; every other word is the query, so `trawl search -draft` or
 * `trawl search "-x y"` searches for what was typed instead of failing as an unknown option.
 */
export function splitSearchArgs(args: string[]): {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
} {
  const values: Record<string, string | boolean | undefined> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    const [flag, inline] = a.startsWith('--') ? a.split(/=(.*)/s, 2) : [a, undefined];
    if (flag === '--json') values.json = true;
    else if (VALUE_FLAGS.has(flag)) {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      values[flag.slice(2)] = v;
    } else positionals.push(a);
  }
  return { values, positionals };
}

/** The stable `--json` shape other tools script against. */
export function toJson(res: SearchResponse): string {
  return JSON.stringify({
    total: res.total,
    hits: res.hits.map((h) => ({
      id: h.id,
      url: h.url,
      path: h.path,
      title: h.title,
      snippet: h.snippet,
      score: h.score,
      mtime: h.mtime,
      size: h.size,
      type: h.type,
    })),
  });
}

/** `trawl search "<query>"`: always runs as the OS user who invokes it. */
export const searchCommand: Command = {
  name: 'search',
  summary: 'search the index (query syntax: docs/QUERY.md)',
  usage: 'search "<query>" [--json] [--limit N] [--offset N] [--sort relevance|date|name] [--daemon PATH]',
  async run({ args, io, service, dataDir }) {
    const { values, positionals } = splitSearchArgs(args);
    const query = positionals.join(' ');
    if (!query.trim()) throw new UsageError('search needs a query, e.g. trawl search "budget report"');
    const limit = values.limit ? Number(values.limit) : 10;
    const offset = values.offset ? Number(values.offset) : 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError('--limit must be 1..1000');
    if (!Number.isInteger(offset) || offset < 0) throw new UsageError('--offset must be 0 or more');
    const sort = (values.sort ?? 'relevance') as SortOrder;
    if (!['relevance', 'date', 'name'].includes(sort))
      throw new UsageError('--sort must be relevance, date or name');
    // A system-wide daemon answers as the OS user whose socket this process can reach (docs/SECURITY.md).
    const { resolveDaemonSocket, connectDaemon } = await import('../../daemon/daemon-client.js');
    const socket = resolveDaemonSocket({ flag: values.daemon as string | undefined, env: io.env, dataDir });
    let res: SearchResponse;
    let hasSources = true;
    if (socket) {
      const client = await connectDaemon(socket);
      try {
        res = await client.request('search', { query, limit, offset, sort });
      } finally {
        client.close();
      }
    } else {
      const svc = await service();
      res = svc.search({ query, limit, offset, sort });
      hasSources = svc.listSources().length > 0;
    }
    if (values.json) {
      io.out(toJson(res));
      return 0;
    }
    if (res.total === 0) {
      io.out(
        hasSources
          ? `no results for ${query}`
          : 'no sources yet: add one with `trawl source add <folder-or-url>`',
      );
      return 0;
    }
    for (const h of res.hits) {
      io.out(`${unmark(h.title, false)}\n  ${h.path}\n  ${unmark(h.snippet, io.tty)}\n`);
    }
    const shown = res.hits.length ? `${offset + 1}-${offset + res.hits.length}` : '0';
    io.out(
      `${shown} of ${res.total} results${res.relaxed ? ' (some match only part of the query)' : ''} in ${res.tookMs.toFixed(1)} ms`,
    );
    return 0;
  },
};
