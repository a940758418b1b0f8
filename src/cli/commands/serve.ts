import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandArgs } from '../main.js';
import { UsageError, type Command } from '../command.js';
import { projectRoot } from '../project-root.js';

/** `trawl serve [--port N]`: the search UI and the contract over HTTP on 127.0.0.1 only. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the search UI on 127.0.0.1 (per-launch token in the URL)',
  usage: 'serve [--port N] [--open-files]',
  async run({ args, io, service }) {
    const { values } = parseCommandArgs(
      args,
      { port: { type: 'string' }, 'open-files': { type: 'boolean' } },
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
      if (await buildRenderer()) io.err('built the search UI');
    }
    if (!fs.existsSync(path.join(staticDir, 'index.html')))
      throw new Error(`the search UI is not built (${staticDir})`);
    const svc = await service();
    // Watching and schedules run while the UI is up; crawls step aside while the user types.
    const { startBackground } = await import('../../main/core/live/background.js');
    const background = await startBackground(svc);
    svc.setActivityListener(() => background.noteUserActivity());
    const { startWebShell } = await import('../../web-shell/server.js');
    const shell = await startWebShell({
      service: svc,
      port,
      staticDir,
      openFiles: values['open-files'] === true,
      version: '0.1.0',
      background,
    });
    io.out(`Trawl is serving the search UI at ${shell.url}`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await shell.close();
    svc.setActivityListener(null);
    await background.stop();
    return 0;
  },
};
