// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesktopSettings } from '../../shared/contract.js';
import { App } from './app.js';
import { createFakeApi, makeSource } from './test/fake-api.js';
import { setupDom } from './test/setup-dom.js';

beforeEach(() => {
  setupDom();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('desktop preferences', () => {
  it('are absent in the web shell', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} />);
    await waitFor(() => expect(fake.callsOf('appInfo')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Desktop' })).toBeNull();
  });

  it('change the shortcut and start-at-login in the desktop app, and say when a shortcut is taken', async () => {
    let settings: DesktopSettings = {
      shortcut: 'CommandOrControl+Alt+Space',
      startAtLogin: false,
      shortcutActive: true,
    };
    const fake = createFakeApi({
      sources: [makeSource(1, 'Docs', '/docs')],
      overrides: {
        appInfo: () => ({
          transport: 'electron',
          version: 't',
          platform: 'linux',
          canPickFolder: true,
          canOpenFiles: true,
        }),
        desktopSettings: () => settings,
        updateDesktopSettings: (patch) => {
          settings = { ...settings, ...patch, shortcutActive: patch.shortcut !== 'Alt+Space' };
          return settings;
        },
      },
    });
    render(<App api={fake.api} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Desktop' }));
    const dialog = await screen.findByRole('dialog', { name: 'Desktop' });
    const box = within(dialog).getByLabelText('Start Trawl when I log in') as HTMLInputElement;
    await waitFor(() => expect(box.disabled).toBe(false));
    fireEvent.click(box);
    await waitFor(() => expect(fake.callsOf('updateDesktopSettings')).toEqual([{ startAtLogin: true }]));
    fireEvent.change(within(dialog).getByLabelText('Global shortcut'), { target: { value: 'Alt+Space' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(
      await within(dialog).findByText('Alt+Space is used by another application: choose another.'),
    ).toBeTruthy();
  });
});
