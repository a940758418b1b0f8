import { UsageError, type Command } from '../command.js';
import { LiveSettings, LIVE_DEFAULTS, type LiveSettingValues } from '../../main/core/live/live-settings.js';

/** CLI names of the numeric live settings. */
const NUMERIC: Record<string, Exclude<keyof LiveSettingValues, 'paused'>> = {
  'cpu-budget': 'cpuBudget',
  'watch-budget': 'watchBudget',
  'poll-minutes': 'pollMinutes',
  'quiet-ms': 'quietMs',
};

/**
 * `trawl live`: the background runner's settings, stored with the index so the daemon and the app
 * pick them up (a running runner notices changes made by another process).
 */
export const liveCommand: Command = {
  name: 'live',
  summary: 'watching and schedules: pause, resume, CPU budget, watch budget',
  usage:
    'live [pause | resume | set cpu-budget 0.5 | set watch-budget N | set poll-minutes N | set quiet-ms N]',
  async run({ args, io, service }) {
    const [sub, name, value] = args;
    const settings = new LiveSettings((await service()).db);
    switch (sub) {
      case undefined:
        break;
      case 'pause':
      case 'resume':
        settings.set('paused', sub === 'pause');
        break;
      case 'set': {
        const key = NUMERIC[name ?? ''];
        if (!key) throw new UsageError(`live set takes one of: ${Object.keys(NUMERIC).join(', ')}`);
        const n = Number(value);
        if (value === undefined || !Number.isFinite(n))
          throw new UsageError(`live set ${name} needs a number`);
        try {
          settings.set(key, n);
        } catch (e) {
          throw new UsageError(`${name}: ${(e as Error).message}`);
        }
        break;
      }
      default:
        throw new UsageError(`usage: trawl ${liveCommand.usage}`);
    }
    const all = Object.fromEntries(
      (Object.keys(LIVE_DEFAULTS) as (keyof LiveSettingValues)[]).map((k) => [k, settings.get(k)]),
    );
    io.out(
      `live: ${all.paused ? 'paused' : 'on'} · CPU budget ${Math.round(Number(all.cpuBudget) * 100)} % · watch budget ${all.watchBudget} · poll every ${all.pollMinutes} min when a source cannot be watched · quiet ${all.quietMs} ms after searches`,
    );
    return 0;
  },
};
