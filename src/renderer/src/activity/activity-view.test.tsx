// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app.js';
import { reconcileProgress } from '../app-data.js';
import { createFakeApi, makeSource, progressEvent } from '../test/fake-api.js';
import { setupDom } from '../test/setup-dom.js';

beforeEach(() => {
  setupDom();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('crawl status', () => {
  it('follows progress events to the finished state and offers the controls', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} initialView="activity" />);
    const card = await screen.findByRole('region', { name: 'Docs' });
    fireEvent.click(within(card).getByRole('button', { name: 'Full' }));
    await waitFor(() => expect(fake.callsOf('startCrawl')).toEqual([{ sourceId: 1, mode: 'full' }]));
    expect(within(card).getByTestId('crawl-state').textContent).toBe('Starting…');

    act(() => fake.events.emit('progress', progressEvent(1, 25, 100)));
    const bar = within(card).getByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBe('25');
    expect(within(card).getByText('25 of 100')).toBeTruthy();
    expect(within(card).getByText('12.5 items/s')).toBeTruthy();
    expect(within(card).getByText('/data/file-25.txt')).toBeTruthy();
    expect((within(card).getByRole('button', { name: 'Full' }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(within(card).getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(fake.callsOf('stopCrawl')).toEqual([{ sourceId: 1 }]));
    fireEvent.click(within(card).getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(fake.callsOf('pause')).toEqual([{ sourceId: 1 }]));

    act(() => {
      fake.events.emit('progress', progressEvent(1, 100, 100, 'done'));
      fake.events.emit('crawl-finished', {
        id: 1,
        sourceId: 1,
        mode: 'full',
        startedAt: 0,
        endedAt: 1500,
        status: 'done',
        counts: {
          discovered: 100,
          added: 98,
          updated: 0,
          notModified: 0,
          deleted: 0,
          failed: 2,
          excluded: 0,
        },
        error: null,
      });
    });
    expect(within(card).getByTestId('crawl-state').textContent).toBe('Finished');
    expect(within(card).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    expect(within(card).getByText('98')).toBeTruthy();
  });

  it('lists failed and excluded items with their reasons, filterable', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} initialView="activity" />);
    const log = await screen.findByRole('region', { name: 'Crawl log' });
    await waitFor(() => expect(within(log).getAllByTestId('log-row')).toHaveLength(2));
    expect(within(log).getByText('corrupt PDF')).toBeTruthy();
    fireEvent.click(within(log).getByRole('tab', { name: 'Excluded' }));
    await waitFor(() => expect(within(log).getAllByTestId('log-row')).toHaveLength(1));
    expect(within(log).getByText('excluded by rule 1 (*.tmp)')).toBeTruthy();
    fireEvent.click(within(log).getByRole('tab', { name: 'Failed' }));
    await waitFor(() => expect(fake.callsOf('log').at(-1)).toEqual({ failedOnly: true, limit: 500 }));
  });

  it('shows who is searching', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} />);
    await waitFor(() =>
      expect(screen.getByTestId('whoami').textContent).toBe('Searching as alice · groups: alice, sales'),
    );
  });
});

describe('language', () => {
  it('follows a Chinese system locale and can be switched', async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['zh-CN', 'en']);
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} />);
    expect(await screen.findByLabelText('搜索查询')).toBeTruthy();
    expect(screen.getByRole('button', { name: /内容源/ })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('语言'), { target: { value: 'en' } });
    expect(await screen.findByLabelText('Search query')).toBeTruthy();
    expect(localStorage.getItem('trawl.locale')).toBe('en');
  });
});

describe('reconcileProgress', () => {
  const record = (id: number, status: 'running' | 'done') => ({
    id,
    sourceId: 1,
    mode: 'full' as const,
    startedAt: 0,
    endedAt: status === 'done' ? 10 : null,
    status,
    counts: { discovered: 7, added: 7, updated: 0, notModified: 0, deleted: 0, failed: 0, excluded: 0 },
    error: null,
  });
  const status = (running: ReturnType<typeof progressEvent>[], last: ReturnType<typeof record> | null) => ({
    dataDir: '/d',
    documents: 7,
    indexBytes: 1,
    running,
    sources: [
      {
        ...makeSource(1, 'Docs', '/docs'),
        stats: { sourceId: 1, documents: 7, failed: 0, byType: [], lastCrawl: last },
      },
    ],
  });

  it('never lets an older status snapshot undo a newer event', () => {
    const done = new Map([[1, progressEvent(1, 7, 7, 'done')]]);
    expect(
      reconcileProgress(done, status([progressEvent(1, 0, 0)], record(1, 'running'))).get(1)?.state,
    ).toBe('done');
    const ahead = new Map([[1, progressEvent(1, 5, 7)]]);
    expect(
      reconcileProgress(ahead, status([progressEvent(1, 2, 7)], record(1, 'running'))).get(1)?.done,
    ).toBe(5);
  });

  it('finishes a crawl whose final events were lost, from the last crawl record', () => {
    const stuck = new Map([[1, progressEvent(1, 0, 0)]]);
    const next = reconcileProgress(stuck, status([], record(1, 'done'))).get(1);
    expect(next).toMatchObject({ state: 'done', done: 7, currentItem: null });
  });
});
