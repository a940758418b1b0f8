import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed Trawl folder (holding its package.json), from the bundle or the TS sources. */
export function projectRoot(from: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'trawl') return dir;
      } catch {}
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the Trawl installation folder');
    dir = up;
  }
}
