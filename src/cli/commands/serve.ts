import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandArgs } from '../main.js';
import { UsageError, type Command } from '../command.js';
import { projectRoot } from '../project-root.js';

/**
 * `trawl serve [--port N] [--daemon PATH]`: the search UI and the contract over HTTP on 127.0.0.1
 * only. With a system-wide daemon (found as `trawl search` finds it: `--daemon`, `TRAWL_DAEMON`,
 * the default socket) the UI searches through it, as the OS user running `trawl serve`.
 */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the search UI on 127.0.0.1 (per-launch token in the URL)',
  usage: 'serve [--port N] [--open-files] [--daemon PATH]',
  async run({ args, io, service, dataDir }) {
    const { values } = parseCommandArgs(
      args,
      { port: { type: 'string' }, 'open-files': { type: 'boolean' }, daemon: { type: 'string' } },
      false,
    );
    const port = values.port ? Number(values.port) : 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0..65535');
    const root = projectRoot();
    const staticDir = path.join(root, 'out', 'renderer');
    const builder = path.join(root, 'scripts', 'build-renderer.mjs');
    if (fs.existsSync(builder)) {
      const { buildRenderer } = (await import(pathToFileURL(builder).href)) as {
        buildRenderer: (o?: object) => Promise<boolean>;
      };
      try {
        if (await buildRenderer()) io.err('built the search UI');
      } catch (e) {
        // Another account's install (read-only for this user): serve the UI that is there.
        if (!fs.existsSync(path.join(staticDir, 'index.html'))) throw e;
        io.err(`could not rebuild the search UI (${(e as Error).message}); serving the existing build`);
      }
    }
    if (!fs.existsSync(path.join(staticDir, 'index.html')))
      throw new Error(`the search UI is not built (${staticDir})`);
    const { startWebShell } = await import('../../web-shell/server.js');
    const openFiles = values['open-files'] === true;

    const { resolveDaemonSocket } = await import('../../daemon/daemon-client.js');
    const socket = resolveDaemonSocket({ flag: values.daemon, env: io.env, dataDir });
    if (socket) {
      const { DaemonConnection } = await import('../../daemon/daemon-binding.js');
      const daemon = new DaemonConnection(socket);
      try {
        // Fails here, with the reason, when the daemon cannot be reached.
        const me = await daemon.request('whoami', {});
        const shell = await startWebShell({ daemon, port, staticDir, openFiles, version: '0.1.0' });
        io.out(`Trawl is serving the search UI at ${shell.url}`);
        io.err(`results from the trawl daemon at ${socket} · ${me.display}`);
        await untilStopped();
        await shell.close();
      } finally {
        daemon.close();
      }
      return 0;
    }

    const svc = await service();
    // Watching and schedules run while the UI is up; crawls step aside while the user types.
    const { startBackground } = await import('../../main/core/live/background.js');
    const background = await startBackground(svc);
    svc.setActivityListener(() => background.noteUserActivity());
    const shell = await startWebShell({
      service: svc,
      port,
      staticDir,
      openFiles,
      version: '0.1.0',
      background,
    });
    io.out(`Trawl is serving the search UI at ${shell.url}`);
    await untilStopped();
    await shell.close();
    svc.setActivityListener(null);
    await background.stop();
    return 0;
  },
};

function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
