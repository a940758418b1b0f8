/**
 * Desktop preferences (global shortcut, start at login) in a small JSON file in the app's data
 * folder. Invalid or missing files give the defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const DEFAULT_SHORTCUT = 'CommandOrControl+Alt+Space';

const schema = z.object({
  shortcut: z.string().min(1).max(100).catch(DEFAULT_SHORTCUT),
  startAtLogin: z.boolean().catch(false),
});

export type StoredDesktopSettings = z.infer<typeof schema>;

export function loadDesktopSettings(file: string): StoredDesktopSettings {
  try {
    return schema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return { shortcut: DEFAULT_SHORTCUT, startAtLogin: false };
  }
}

export function saveDesktopSettings(file: string, settings: StoredDesktopSettings): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(settings, null, 2));
  fs.renameSync(tmp, file);
}
