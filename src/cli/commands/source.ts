import { parseCommandArgs } from '../main.js';
import { UsageError, type Command } from '../command.js';
import type { CrawlRule } from '../../main/core/model.js';

function ruleFrom(action: 'include' | 'exclude', pattern: string): CrawlRule {
  if (pattern.startsWith('re:')) return { action, syntax: 'regex', pattern: pattern.slice(3) };
  if (pattern.startsWith('prefix:')) return { action, syntax: 'prefix', pattern: pattern.slice(7) };
  return { action, syntax: 'glob', pattern };
}

/** `trawl source add|list|remove|show`. */
export const sourceCommand: Command = {
  name: 'source',
  summary: 'add, list, show or remove content sources',
  usage: 'source add <path-or-url> [--name N] [--include P]… [--exclude P]…',
  async run({ args, io, service }) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'add': {
        const { values, positionals } = parseCommandArgs(rest, {
          name: { type: 'string' },
          include: { type: 'string', multiple: true },
          exclude: { type: 'string', multiple: true },
          'max-size': { type: 'string' },
          'follow-symlinks': { type: 'boolean' },
          hidden: { type: 'boolean' },
          types: { type: 'string' },
          'deny-types': { type: 'string' },
          'no-default-excludes': { type: 'boolean' },
        });
        if (positionals.length === 0) throw new UsageError('source add needs a folder path or URL');
        // Rules keep the order given: includes first, then excludes, unless the user interleaves.
        const rules: CrawlRule[] = [];
        for (let i = 0; i < rest.length; i++) {
          const a = rest[i];
          const m = /^--(include|exclude)(?:=(.*))?$/.exec(a);
          if (m) rules.push(ruleFrom(m[1] as 'include' | 'exclude', m[2] ?? rest[++i]));
        }
        const settings: Record<string, unknown> = {};
        if (values['max-size']) settings.maxFileSize = parseSize(values['max-size']);
        if (values['follow-symlinks']) settings.followSymlinks = true;
        if (values.hidden) settings.includeHidden = true;
        if (values.types) settings.allowTypes = splitList(values.types);
        if (values['deny-types']) settings.denyTypes = splitList(values['deny-types']);
        if (values['no-default-excludes']) settings.defaultExcludes = false;
        const svc = await service();
        const s = svc.addSource({ name: values.name, startAddresses: positionals, rules, settings });
        io.out(`added source ${s.id} "${s.name}" (${s.kind}): ${s.displayAddresses.join(', ')}`);
        return 0;
      }
      case 'list': {
        const { values } = parseCommandArgs(rest, { json: { type: 'boolean' } }, false);
        const svc = await service();
        const list = svc.listSources();
        if (values.json) io.out(JSON.stringify(list, null, 2));
        else if (list.length === 0) io.out('no sources yet: add one with `trawl source add <folder-or-url>`');
        else
          for (const s of list)
            io.out(`${String(s.id).padStart(3)}  ${s.name.padEnd(20)} ${s.kind.padEnd(5)} ${s.displayAddresses.join(', ')}${s.paused ? '  (paused)' : ''}${s.rules.length ? `  rules: ${s.rules.length}` : ''}`);
        return 0;
      }
      case 'show': {
        const id = rest[0];
        if (!id) throw new UsageError('source show needs an id or name');
        const svc = await service();
        const s = svc.sources.find(id);
        if (!s) throw new Error(`no source ${id}`);
        io.out(JSON.stringify(s, null, 2));
        return 0;
      }
      case 'remove':
      case 'rm': {
        const id = rest[0];
        if (!id) throw new UsageError('source remove needs an id or name');
        const svc = await service();
        const s = svc.sources.find(id);
        if (!s) throw new Error(`no source ${id}`);
        svc.removeSource(s.id);
        io.out(`removed source ${s.id} "${s.name}" and its documents`);
        return 0;
      }
      default:
        throw new UsageError('usage: trawl source add <path-or-url> | list | show <id> | remove <id>');
    }
  },
};

function splitList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim().replace(/^\./, '').toLowerCase())
    .filter(Boolean);
}

/** "10mb" → bytes. */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?$/i.exec(s.trim());
  if (!m) throw new UsageError(`not a size: ${s} (e.g. 500kb, 20mb)`);
  const mult: Record<string, number> = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };
  return Math.round(Number(m[1]) * mult[(m[2] ?? 'b').toLowerCase()]);
}
