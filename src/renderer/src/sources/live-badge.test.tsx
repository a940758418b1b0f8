// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../app.js';
import { backgroundStatus, createFakeApi, liveSource, makeSource } from '../test/fake-api.js';
import { setupDom } from '../test/setup-dom.js';

beforeEach(() => {
  setupDom();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
});

const sources = [makeSource(1, 'Notes', '/home/alice/notes'), makeSource(2, 'Archive', '/mnt/nfs/archive')];

function card(name: string): HTMLElement {
  const list = screen.getByRole('list', { name: 'Sources' });
  return within(list).getByRole('button', { name: new RegExp(`^${name}`) });
}

describe('live state in the source list', () => {
  it('shows a watched source as Watching and a polled one with its cadence and reason', async () => {
    const fake = createFakeApi({
      sources,
      live: backgroundStatus([
        liveSource(1, 'watching'),
        liveSource(2, 'polling', { pollMinutes: 10, reason: 'inotify watch limit reached' }),
      ]),
    });
    render(<App api={fake.api} initialView="sources" />);

    await waitFor(() => expect(within(card('Notes')).getByText('Watching')).toBeTruthy());
    expect(within(card('Notes')).queryByText(/Polling/)).toBe(null);
    expect(within(card('Archive')).getByText('Polling every 10 min')).toBeTruthy();
    expect(within(card('Archive')).getByText('inotify watch limit reached')).toBeTruthy();
    expect(within(card('Archive')).queryByText('Watching')).toBe(null);
    expect(fake.callsOf('liveStatus').length).toBeGreaterThan(0);

    // the selected source's editor header says the same
    const editor = await screen.findByRole('form', { name: 'Notes' });
    expect(within(editor).getByText('Watching')).toBeTruthy();
  });

  it('follows live-status events: a source that falls back to polling says so with the reason', async () => {
    const fake = createFakeApi({ sources, live: backgroundStatus([liveSource(1, 'watching')]) });
    render(<App api={fake.api} initialView="sources" />);
    await waitFor(() => expect(within(card('Notes')).getByText('Watching')).toBeTruthy());

    fake.events.emit(
      'live-status',
      backgroundStatus([
        liveSource(1, 'polling', { reason: 'NFS mount: watching does not see changes made elsewhere' }),
        liveSource(2, 'off', { reason: 'no background runner: start `trawl daemon` or the app' }),
      ]),
    );
    await waitFor(() => expect(within(card('Notes')).getByText('Polling every 15 min')).toBeTruthy());
    expect(
      within(card('Notes')).getByText('NFS mount: watching does not see changes made elsewhere'),
    ).toBeTruthy();
    expect(within(card('Notes')).queryByText('Watching')).toBe(null);
    expect(within(card('Archive')).getByText('Off')).toBeTruthy();
    expect(within(card('Archive')).getByText(/no background runner/)).toBeTruthy();
  });

  it('shows no live badge without a background runner, and speaks Simplified Chinese', async () => {
    const none = createFakeApi({ sources });
    const { unmount } = render(<App api={none.api} initialView="sources" />);
    await waitFor(() => expect(none.callsOf('liveStatus').length).toBeGreaterThan(0));
    expect(within(card('Notes')).queryByText('Watching')).toBe(null);
    expect(document.querySelector('[data-live-state]')).toBe(null);
    unmount();

    localStorage.setItem('trawl.locale', 'zh-CN');
    const fake = createFakeApi({
      sources,
      live: backgroundStatus([liveSource(1, 'watching'), liveSource(2, 'polling', { pollMinutes: 30 })]),
    });
    render(<App api={fake.api} initialView="sources" />);
    await waitFor(() => expect(screen.getAllByText('正在监视').length).toBeGreaterThan(0));
    expect(screen.getByText('每 30 分钟轮询')).toBeTruthy();
  });
});
