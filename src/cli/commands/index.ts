import type { Command } from '../command.js';
import { sourceCommand } from './source.js';
import { crawlCommand } from './crawl.js';
import { searchCommand } from './search.js';
import { statusCommand } from './status.js';
import { logCommand } from './log.js';
import { serveCommand } from './serve.js';
import { liveCommand } from './live.js';
import { whoamiCommand } from './whoami.js';
import { daemonCommand } from './daemon.js';

/** Every `trawl` sub-command, in the order `trawl help` lists them. */
export const COMMANDS: Command[] = [
  sourceCommand,
  crawlCommand,
  searchCommand,
  statusCommand,
  logCommand,
  serveCommand,
  whoamiCommand,
  daemonCommand,
  liveCommand,
];
