import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveDataDir } from './data-dir.js';
import { UsageError, type CliIo, type Command } from './command.js';
import type { TrawlService } from '../main/core/service.js';
import { COMMANDS } from './commands/index.js';
import { readSecret } from './read-secret.js';

function defaultIo(): CliIo {
  return {
    out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    tty: !!process.stderr.isTTY,
    env: process.env,
    prompt: readSecret,
  };
}

function help(io: CliIo): void {
  const lines = ['Usage: trawl <command> [options]   (all commands take --data-dir DIR)', '', 'Commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.usage.padEnd(58)} ${c.summary}`);
  lines.push('', 'Data directory: --data-dir, else $TRAWL_DATA_DIR, else the platform app-data folder.');
  io.out(lines.join('\n'));
}

/** Pull `--data-dir` out of anywhere in argv; everything else goes to the command. */
function splitGlobal(argv: string[]): { dataDir?: string; rest: string[] } {
  const rest: string[] = [];
  let dataDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--data-dir') {
      dataDir = argv[++i];
      if (!dataDir) throw new UsageError('--data-dir needs a folder');
    } else if (a.startsWith('--data-dir=')) dataDir = a.slice('--data-dir='.length);
    else rest.push(a);
  }
  return { dataDir, rest };
}

/**
 * Run the `trawl` CLI with `argv` (without node and script). Returns the exit code: 0 ok, 1 error,
 * 2 usage. Errors are printed as one line; no stack traces unless TRAWL_DEBUG is set.
 */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let service: TrawlService | null = null;
  try {
    const { dataDir, rest } = splitGlobal(argv);
    const [name, ...args] = rest;
    if (!name || name === 'help' || name === '--help' || name === '-h') {
      help(io);
      return name ? 0 : 0;
    }
    if (name === '--version' || name === '-v') {
      io.out('trawl 0.1.0');
      return 0;
    }
    const cmd: Command | undefined = COMMANDS.find((c) => c.name === name);
    if (!cmd) throw new UsageError(`unknown command '${name}' (try: trawl help)`);
    const dir = resolveDataDir(dataDir, io.env);
    return await cmd.run({
      args,
      dataDir: dir,
      io,
      service: async () => {
        if (!service) {
          const { TrawlService } = await import('../main/core/service.js');
          service = await TrawlService.open({ dataDir: dir });
        }
        return service;
      },
    });
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`trawl: ${e.message}`);
      return 2;
    }
    const err = e as Error;
    io.err(`trawl: ${err.message}`);
    if (io.env.TRAWL_DEBUG) io.err(err.stack ?? '');
    return 1;
  } finally {
    if (service) await (service as TrawlService).close();
  }
}

/** Parse a command's options with node:util parseArgs, turning its errors into UsageError. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  allowPositionals = true,
) {
  try {
    return parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({
      args,
      options,
      allowPositionals: allowPositionals as true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/, ''));
  }
}
