// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app.js';
import { createFakeApi, makeSource, type FakeDoc } from '../test/fake-api.js';
import { setupDom } from '../test/setup-dom.js';

const DOCS: FakeDoc[] = [
  {
    id: 1,
    title: 'Release plan',
    path: '/docs/plan.md',
    text: 'The release plan for the search engine. Search twice: search.',
  },
  {
    id: 2,
    title: 'Annual report',
    path: '/docs/report.txt',
    text: 'Revenue grew; the search product launched.',
  },
  { id: 3, title: 'Budget', path: '/docs/budget.txt', text: 'Numbers only.' },
];

let clipboard: string[];

beforeEach(() => {
  setupDom();
  localStorage.clear();
  clipboard = [];
  Object.defineProperty(navigator, 'clipboard', {
    configurable: true,
    value: { writeText: async (text: string) => void clipboard.push(text) },
  });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function renderApp(opts: Parameters<typeof createFakeApi>[0] = {}) {
  const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')], docs: DOCS, ...opts });
  render(<App api={fake.api} />);
  return fake;
}

const searchBox = () => screen.getByLabelText('Search query') as HTMLInputElement;
const rows = () => screen.queryAllByTestId('result-row');

describe('search as you type', () => {
  it('debounces keystrokes into one request and shows the count', async () => {
    const fake = renderApp();
    for (const q of ['s', 'se', 'sea', 'sear', 'search'])
      fireEvent.change(searchBox(), { target: { value: q } });
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(fake.callsOf('search').map((r) => (r as { query: string }).query)).toEqual(['search']);
    expect(screen.getByTestId('result-count').textContent).toContain('2 results');
  });

  it('drops a slow response that arrives after a newer query was answered', async () => {
    const fake = renderApp({ searchDelay: (q) => (q === 'release' ? 400 : 0) });
    fireEvent.change(searchBox(), { target: { value: 'release' } });
    await waitFor(() => expect(fake.callsOf('search')).toHaveLength(1));
    fireEvent.change(searchBox(), { target: { value: 'revenue' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0].textContent).toContain('Annual report');
    await act(() => new Promise((r) => setTimeout(r, 500)));
    expect(rows()).toHaveLength(1);
    expect(rows()[0].textContent).toContain('Annual report');
    expect(screen.queryByText('Release plan')).toBeNull();
  });

  it('shows the query-syntax error with a way to the help', async () => {
    renderApp();
    fireEvent.change(searchBox(), { target: { value: '"unclosed' } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Unbalanced quote');
    fireEvent.click(within(alert).getByRole('button', { name: 'Query syntax' }));
    expect(screen.getByRole('dialog', { name: 'Query syntax' })).toBeTruthy();
  });

  it('says what to do when nothing matches', async () => {
    renderApp();
    fireEvent.change(searchBox(), { target: { value: 'zebra' } });
    const empty = await screen.findByTestId('no-results');
    expect(empty.textContent).toContain('No results for “zebra”');
  });

  it('offers to add a source when there are none', async () => {
    const fake = createFakeApi({ sources: [], docs: [] });
    render(<App api={fake.api} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add a source' }));
    expect(await screen.findByRole('form', { name: 'Add a source' })).toBeTruthy();
  });
});

describe('snippets and preview are inert text', () => {
  it('renders only <mark> from snippets; markup in content stays text', async () => {
    const hostile: FakeDoc = {
      id: 9,
      title: '<img src=x onerror=alert(1)>',
      path: '/docs/evil.html',
      text: 'search <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">',
      snippet:
        '<mark>search</mark> &lt;script&gt;window.__pwned = 1&lt;/script&gt; &lt;img src=x onerror=&quot;x&quot;&gt; <b>raw</b>',
    };
    renderApp({ docs: [hostile] });
    fireEvent.change(searchBox(), { target: { value: 'search' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = rows()[0];
    expect(row.querySelectorAll('script, img, b')).toHaveLength(0);
    expect(row.querySelectorAll('mark')[0]?.textContent).toBe('search');
    expect(row.textContent).toContain('<script>window.__pwned = 1</script>');
    expect(row.textContent).toContain('<b>raw</b>');
    const preview = await screen.findByTestId('preview-text');
    await waitFor(() => expect(preview.textContent).toContain('<img src=x onerror="window.__pwned = 2">'));
    expect(document.querySelectorAll('main script, main img')).toHaveLength(0);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('says why a preview has no text when the file changed after it was indexed', async () => {
    const changed: FakeDoc = {
      id: 12,
      title: 'Changed notes',
      path: '/docs/changed.txt',
      text: 'search words that were indexed',
      changedSinceIndexed: true,
    };
    renderApp({ docs: [changed] });
    fireEvent.change(searchBox(), { target: { value: 'search' } });
    const preview = await screen.findByTestId('preview');
    await waitFor(() => expect(within(preview).getByText(/changed after it was indexed/)).toBeTruthy());
    expect(within(preview).getByTestId('preview-text').textContent).not.toContain('words that were indexed');
  });

  it('marks preview hits and walks them with next/previous', async () => {
    renderApp();
    fireEvent.change(searchBox(), { target: { value: 'search' } });
    const preview = await screen.findByTestId('preview');
    await waitFor(() => expect(within(preview).getByText('Hit 1 of 3')).toBeTruthy());
    expect(within(preview).getByTestId('preview-text').querySelectorAll('mark')).toHaveLength(3);
    fireEvent.click(within(preview).getByRole('button', { name: 'Next hit' }));
    expect(within(preview).getByText('Hit 2 of 3')).toBeTruthy();
    expect(
      within(preview)
        .getByTestId('preview-text')
        .querySelectorAll('mark')[1]
        .classList.contains('is-current'),
    ).toBe(true);
    fireEvent.click(within(preview).getByRole('button', { name: 'Previous hit' }));
    fireEvent.click(within(preview).getByRole('button', { name: 'Previous hit' }));
    expect(within(preview).getByText('Hit 3 of 3')).toBeTruthy();
    fireEvent.keyDown(searchBox(), { key: 'F3' });
    expect(within(preview).getByText('Hit 1 of 3')).toBeTruthy();
  });
});

describe('when the index changes under a query', () => {
  it('re-runs the search but keeps the selected document and the preview position', async () => {
    const fake = renderApp();
    fireEvent.change(searchBox(), { target: { value: 'search' } });
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.keyDown(searchBox(), { key: 'ArrowDown' });
    fireEvent.keyDown(searchBox(), { key: 'ArrowUp' });
    const preview = await screen.findByTestId('preview');
    await waitFor(() => expect(within(preview).getByText('Hit 1 of 3')).toBeTruthy());
    fireEvent.keyDown(searchBox(), { key: 'F3' });
    expect(within(preview).getByText('Hit 2 of 3')).toBeTruthy();
    fireEvent.keyDown(searchBox(), { key: 'ArrowDown' });
    fireEvent.keyDown(searchBox(), { key: 'ArrowUp' });
    await waitFor(() => expect(within(preview).getByText('Hit 1 of 3')).toBeTruthy());
    fireEvent.keyDown(searchBox(), { key: 'F3' });
    const searches = fake.callsOf('search').length;
    act(() =>
      fake.events.emit('crawl-finished', {
        id: 9,
        sourceId: 1,
        mode: 'incremental',
        startedAt: 0,
        endedAt: 1,
        status: 'done',
        counts: { discovered: 1, added: 0, updated: 1, notModified: 0, deleted: 0, failed: 0, excluded: 0 },
        error: null,
      }),
    );
    await waitFor(() => expect(fake.callsOf('search').length).toBe(searches + 1));
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(rows()[0].getAttribute('aria-selected')).toBe('true');
    expect(within(preview).getByText('Hit 2 of 3')).toBeTruthy();
    expect(within(preview).getByTestId('preview-text').querySelectorAll('mark.is-current')).toHaveLength(1);
  });
});

describe('keyboard', () => {
  it('moves with arrows, opens with Enter, reveals with Ctrl+Enter, copies with Ctrl+C, clears with Esc', async () => {
    const fake = renderApp();
    fireEvent.change(searchBox(), { target: { value: 'search' } });
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows()[0].getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(searchBox(), { key: 'ArrowDown' });
    expect(rows()[1].getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(searchBox(), { key: 'ArrowDown' });
    expect(rows()[1].getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(searchBox(), { key: 'Enter' });
    await waitFor(() => expect(fake.callsOf('openItem')).toEqual([{ id: 2, action: 'open' }]));
    fireEvent.keyDown(searchBox(), { key: 'ArrowUp' });
    fireEvent.keyDown(searchBox(), { key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(fake.callsOf('openItem')[1]).toEqual({ id: 1, action: 'reveal' }));
    fireEvent.keyDown(searchBox(), { key: 'c', ctrlKey: true });
    await waitFor(() => expect(clipboard).toEqual(['/docs/plan.md']));
    fireEvent.keyDown(searchBox(), { key: 'Escape' });
    expect(searchBox().value).toBe('');
    expect(fake.callsOf('hideWindow')).toHaveLength(0);
    fireEvent.keyDown(searchBox(), { key: 'Escape' });
    await waitFor(() => expect(fake.callsOf('hideWindow')).toHaveLength(1));
  });

  it('Tab completes the first suggestion', async () => {
    const fake = renderApp();
    fireEvent.focus(searchBox());
    fireEvent.change(searchBox(), { target: { value: 'rev' } });
    await screen.findByRole('listbox', { name: 'Suggestions' });
    expect(fake.callsOf('suggest')).toContainEqual({ prefix: 'rev' });
    fireEvent.keyDown(searchBox(), { key: 'Tab' });
    expect(searchBox().value).toBe('revenue ');
  });
});

describe('virtualized list', () => {
  it('renders a window of rows for thousands of hits and loads pages on demand', async () => {
    const fake = renderApp({ syntheticTotal: 5000 });
    fireEvent.change(searchBox(), { target: { value: 'doc' } });
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    expect(screen.getByTestId('result-count').textContent).toContain('5,000 results');
    expect(rows().length).toBeLessThan(40);
    for (let i = 0; i < 30; i++) fireEvent.keyDown(searchBox(), { key: 'PageDown' });
    await waitFor(() =>
      expect(fake.callsOf('search').some((r) => (r as { offset?: number }).offset === 200)).toBe(true),
    );
    await waitFor(() => expect(document.getElementById('result-240')?.textContent).toContain('Document 241'));
    expect(rows().length).toBeLessThan(40);
    expect(fake.callsOf('search').length).toBeLessThanOrEqual(4);
  });
});
