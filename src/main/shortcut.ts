/** The global shortcut that shows the search window from anywhere (configurable). */
import type { GlobalShortcut } from 'electron';

export interface ShortcutBinding {
  readonly accelerator: string;
  /** False when another application holds the shortcut. */
  readonly active: boolean;
  dispose(): void;
}

export function bindShortcut(
  globalShortcut: Pick<GlobalShortcut, 'register' | 'unregister'>,
  accelerator: string,
  onTrigger: () => void,
): ShortcutBinding {
  let active = false;
  try {
    active = globalShortcut.register(accelerator, onTrigger);
  } catch {
    active = false;
  }
  return {
    accelerator,
    active,
    dispose() {
      if (active) globalShortcut.unregister(accelerator);
      active = false;
    },
  };
}
