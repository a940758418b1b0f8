import type { TrawlService } from '../main/core/service.js';

/** Where a command writes; injectable so tests capture output without spawning. */
export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** True when stderr is a terminal (progress bars). */
  tty: boolean;
  env: NodeJS.ProcessEnv;
  /** Read a secret from the terminal without echo; null when there is no TTY. */
  prompt?: (question: string) => Promise<string | null>;
}

/** What every command gets. */
export interface CommandContext {
  args: string[];
  dataDir: string;
  io: CliIo;
  /** Opens the engine for the data directory (lazily: help needs none). */
  service: () => Promise<TrawlService>;
}

/** One `trawl` sub-command. `run` returns the exit code; thrown UsageError → exit 2. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(ctx: CommandContext): Promise<number>;
}

/** A mistake in how the command was called; printed with the command's usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The id of the source named by `--source` (id or name); undefined when not given. */
export function sourceIdOf(svc: TrawlService, idOrName: string | undefined): number | undefined {
  if (idOrName === undefined) return undefined;
  const s = svc.sources.find(idOrName);
  if (!s) throw new UsageError(`no source ${idOrName}`);
  return s.id;
}
