// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app.js';
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
