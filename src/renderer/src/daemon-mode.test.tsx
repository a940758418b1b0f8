// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppInfo } from '../../shared/contract.js';
import { App } from './app.js';
import { createFakeApi, makeSource } from './test/fake-api.js';
import { setupDom } from './test/setup-dom.js';

const VIA_DAEMON: AppInfo = {
  transport: 'web',
  version: 'test',
  platform: 'linux',
  canPickFolder: false,
  canOpenFiles: false,
  daemon: { socket: '/run/trawl/users/1001/trawl.sock' },
};

const whoami = () => ({
  user: 'alice',
  principals: ['everyone', 'uid:1001', 'gid:1004'],
  display: 'Searching as alice · groups: alice, sales',
});

beforeEach(() => {
  setupDom();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('the UI through a trawl daemon', () => {
  it('says who searches and where results come from, and offers no crawls', async () => {
    const fake = createFakeApi({
      sources: [makeSource(1, 'Shared', '/srv/shared')],
      overrides: { appInfo: () => VIA_DAEMON, whoami },
    });
    render(<App api={fake.api} />);
    const who = await screen.findByTestId('whoami');
    await waitFor(() => expect(who.textContent).toBe('Searching as alice · groups: alice, sales'));
    const from = await screen.findByTestId('daemon');
    expect(from.textContent).toBe('Results from the trawl daemon');
    expect(from.getAttribute('title')).toContain('/run/trawl/users/1001/trawl.sock');
    expect(screen.queryByRole('button', { name: 'Crawls' })).toBeNull();
    expect(screen.queryByText('Web shell')).toBeNull();
  });

  it('lists the sources read-only: no add button, no editor, the administrator manages them', async () => {
    const fake = createFakeApi({
      sources: [makeSource(1, 'Shared', '/srv/shared')],
      overrides: { appInfo: () => VIA_DAEMON, whoami },
    });
    render(<App api={fake.api} initialView="sources" />);
    expect(await screen.findByTestId('daemon-managed')).toBeTruthy();
    expect(screen.getByText('/srv/shared')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add source' })).toBeNull();
    expect(screen.queryByRole('form', { name: 'Shared' })).toBeNull();
    fireEvent.click(screen.getByText('Shared'));
    expect(screen.queryByRole('form', { name: 'Shared' })).toBeNull();
    expect(fake.callsOf('credentialIds')).toEqual([]);
  });

  it('with nothing readable, says so instead of offering to add a source', async () => {
    const fake = createFakeApi({ sources: [], overrides: { appInfo: () => VIA_DAEMON, whoami } });
    render(<App api={fake.api} />);
    expect(await screen.findByText('Nothing you may read yet')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add a source' })).toBeNull();
  });

  it('shows the index counts without its size or data folder', async () => {
    const fake = createFakeApi({
      sources: [makeSource(1, 'Shared', '/srv/shared')],
      overrides: { appInfo: () => VIA_DAEMON, whoami },
    });
    render(<App api={fake.api} initialView="stats" />);
    await screen.findByTestId('daemon');
    expect(screen.getByTestId('stat-documents')).toBeTruthy();
    expect(screen.queryByText('Index size')).toBeNull();
    expect(screen.queryByText(/Data directory/)).toBeNull();
  });

  it('keeps source management and crawls in the UI of a personal index', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} initialView="sources" />);
    expect(await screen.findByRole('button', { name: 'Add source' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Crawls' })).toBeTruthy();
    expect(screen.queryByTestId('daemon-managed')).toBeNull();
    expect(screen.queryByTestId('daemon')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Index' }));
    expect(await screen.findByText('Index size')).toBeTruthy();
    expect(screen.getByText(/Data directory/)).toBeTruthy();
  });
});
