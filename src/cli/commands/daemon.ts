import { parseCommandArgs } from '../main.js';
import { UsageError, type Command } from '../command.js';

/**
 * `trawl daemon`: the multi-user service. Owns the data folder (0700), keeps the index current
 * (watching + scheduled crawls, see docs/LIVE.md; or a plain interval), and answers each user on
 * their own socket below the runtime folder (docs/SECURITY.md).
 */
export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'serve every user their trimmed results over per-user sockets (run as root)',
  usage: 'daemon [--runtime-dir DIR] [--users UID,…] [--no-watch] [--crawl-interval MIN] [--no-crawl]',
  async run({ args, dataDir, io }) {
    const { values } = parseCommandArgs(
      args,
      {
        'runtime-dir': { type: 'string' },
        'crawl-interval': { type: 'string' },
        'no-crawl': { type: 'boolean' },
        'no-watch': { type: 'boolean' },
        users: { type: 'string' },
      },
      false,
    );
    const minutes = values['crawl-interval'] ? Number(values['crawl-interval']) : 0;
    if (!Number.isFinite(minutes) || minutes < 0)
      throw new UsageError('--crawl-interval is minutes (0: only watching and the sources’ schedules)');
    let accounts: 'login' | number[] = 'login';
    if (values.users) {
      accounts = values.users.split(',').map((s) => Number(s.trim()));
      if (accounts.some((u) => !Number.isInteger(u) || u < 0))
        throw new UsageError('--users is a comma-separated list of uids');
    }
    if (process.platform === 'win32')
      throw new Error('trawl daemon is not available on Windows yet (see docs/SECURITY.md)');
    const { DEFAULT_RUNTIME_DIR } = await import('../../daemon/user-sockets.js');
    const { secureDataDir } = await import('../../daemon/data-dir-guard.js');
    const { TrawlDaemon } = await import('../../daemon/daemon.js');
    const { posixSecurity } = await import('../../main/core/security/platform-security.js');
    const { createEngine } = await import('../../main/core/engine.js');
    const { startBackground } = await import('../../main/core/live/background.js');

    if (process.getuid?.() !== 0)
      io.err(
        'trawl daemon: not running as root: user sockets need setfacl, and only readable files get indexed',
      );
    process.umask(0o077);
    secureDataDir(dataDir);
    let security!: ReturnType<typeof posixSecurity>;
    const service = await createEngine({ dataDir, security: (opts) => (security = posixSecurity(opts)) });
    const runtimeDir = values['runtime-dir'] ?? DEFAULT_RUNTIME_DIR;
    const log = (line: string): void => io.err(`${new Date().toISOString()} ${line}`);
    const crawls = !values['no-crawl'];
    const background = crawls
      ? await startBackground(service, {
          watch: !values['no-watch'],
          onError: (e, sourceId) => log(`source ${sourceId ?? '-'}: ${(e as Error)?.message ?? String(e)}`),
        })
      : null;
    let daemon: import('../../daemon/daemon.js').TrawlDaemon;
    try {
      daemon = await TrawlDaemon.start({
        service,
        // as the service resolves users: SMB SIDs of the user's servers included, and named
        userFromUid: (uid) => service.userFromUid(uid),
        runtimeDir,
        accounts,
        log,
        onQuery: () => background?.noteUserActivity(),
        liveStatus: () => background?.status() ?? null,
      });
    } catch (e) {
      await background?.stop();
      await service.close();
      throw e;
    }
    log(
      `trawl daemon: data ${dataDir}, sockets ${runtimeDir}/users/<uid>/ for uids ${daemon.users().join(', ')}`,
    );

    const crawl = async (): Promise<void> => {
      security.fileCapture.invalidate();
      try {
        const records = await service.crawl({ mode: 'incremental' });
        for (const r of records)
          log(
            `crawl of source ${r.sourceId} ${r.status}: added ${r.counts.added}, updated ${r.counts.updated}, deleted ${r.counts.deleted}, failed ${r.counts.failed}`,
          );
      } catch (e) {
        log(`crawl failed: ${(e as Error).message}`);
      }
    };
    const timer = crawls && minutes > 0 ? setInterval(() => void crawl(), minutes * 60_000) : null;
    const onHup = (): void => void daemon.refreshAccounts();
    process.on('SIGHUP', onHup);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    log('trawl daemon: stopping');
    if (timer) clearInterval(timer);
    process.off('SIGHUP', onHup);
    await daemon.close();
    await background?.stop();
    await service.close();
    return 0;
  },
};
