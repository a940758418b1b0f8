import fs from 'node:fs';
import path from 'node:path';

/**
 * Make the daemon's data folder private: created if missing, mode 0700, everything inside 0600
 * (folders 0700), owned by this process's user. Throws when the folder is a symbolic link or
 * belongs to another account. The index is only as private as this folder: a user who can open
 * the SQLite file reads every document in it, trimmed or not.
 */
export function secureDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const me = process.getuid?.();
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (me !== undefined && st.uid !== me)
    throw new Error(`${dir} belongs to uid ${st.uid}, not to the daemon's uid ${me}`);
  const walk = (d: string): void => {
    fs.chmodSync(d, 0o700);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) fs.chmodSync(p, 0o600);
    }
  };
  walk(dir);
}
