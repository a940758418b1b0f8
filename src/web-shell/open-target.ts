/**
 * Opens a local file (or its folder) with the desktop's default handler, for the web shell when it
 * was started with `openFiles`. Arguments go to the opener directly (no shell).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** The opener command for this platform: [command, args]. */
export function openerCommand(
  target: string,
  action: 'open' | 'reveal',
  platform: NodeJS.Platform = process.platform,
): [string, string[]] {
  if (platform === 'darwin') return ['open', action === 'reveal' ? ['-R', target] : [target]];
  if (platform === 'win32') return ['explorer.exe', action === 'reveal' ? [`/select,${target}`] : [target]];
  return ['xdg-open', [action === 'reveal' ? path.dirname(target) : target]];
}

/** Starts the opener detached; resolves false when it could not be started (e.g. no xdg-open). */
export function openLocalFile(target: string, action: 'open' | 'reveal'): Promise<boolean> {
  const [command, args] = openerCommand(target, action);
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
