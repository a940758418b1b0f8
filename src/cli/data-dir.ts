import os from 'node:os';
import path from 'node:path';

/**
 * The data directory (index, settings, credentials): `--data-dir`, else `TRAWL_DATA_DIR`, else the
 * platform's app-data folder (XDG data home on Linux, Application Support on macOS, APPDATA on
 * Windows).
 */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return path.resolve(flag);
  if (env.TRAWL_DATA_DIR) return path.resolve(env.TRAWL_DATA_DIR);
  const home = os.homedir();
  switch (process.platform) {
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Trawl');
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Trawl');
    default:
      return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'trawl');
  }
}
