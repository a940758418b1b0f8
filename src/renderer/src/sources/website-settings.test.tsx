// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrawlError } from '../../../shared/rpc.js';
import { App } from '../app.js';
import { createFakeApi, makeSource } from '../test/fake-api.js';
import { setupDom } from '../test/setup-dom.js';

beforeEach(() => {
  setupDom();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const site = (http: Record<string, unknown>) =>
  makeSource(1, 'Intranet', 'https://intranet.example/', {
    kind: 'http',
    startAddresses: ['https://intranet.example/'],
    displayAddresses: ['https://intranet.example/'],
    settings: { ...makeSource(1, 'x', '/x').settings, http },
  });

describe('website settings', () => {
  it('the add form sends the entered website settings and omits the empty ones', async () => {
    const fake = createFakeApi({ sources: [] });
    render(<App api={fake.api} initialView="sources" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add source' }));
    const form = await screen.findByRole('form', { name: 'Add a source' });
    expect(within(form).queryByLabelText('Crawl profile')).toBeNull();
    fireEvent.click(within(form).getByRole('radio', { name: 'Website' }));
    fireEvent.change(within(form).getByLabelText('Start URL'), {
      target: { value: 'http://127.0.0.1:8080/' },
    });
    const robots = within(form).getByLabelText('Obey robots.txt') as HTMLInputElement;
    expect(robots.checked).toBe(true);
    fireEvent.change(within(form).getByLabelText('Crawl profile'), { target: { value: 'fast' } });
    fireEvent.change(within(form).getByLabelText('Max link hops'), { target: { value: '3' } });
    fireEvent.change(within(form).getByLabelText('Read timeout (ms)'), { target: { value: '2500' } });
    fireEvent.change(within(form).getByLabelText('Proxy'), { target: { value: 'proxy.local:3128' } });
    fireEvent.click(robots);
    fireEvent.click(within(form).getByLabelText('Read sitemaps'));
    fireEvent.click(within(form).getByLabelText('Crawl right away'));
    fireEvent.click(within(form).getByRole('button', { name: 'Add source' }));

    await waitFor(() =>
      expect(fake.callsOf('addSource')).toEqual([
        {
          kind: 'http',
          startAddresses: ['http://127.0.0.1:8080/'],
          settings: {
            http: {
              profile: 'fast',
              obeyRobots: false,
              sitemaps: true,
              maxHops: 3,
              readTimeoutMs: 2500,
              proxy: { host: 'proxy.local', port: 3128 },
            },
          },
        },
      ]),
    );
  });

  it('a malformed proxy is reported in the form and nothing is sent', async () => {
    const fake = createFakeApi({ sources: [] });
    render(<App api={fake.api} initialView="sources" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add source' }));
    const form = await screen.findByRole('form', { name: 'Add a source' });
    fireEvent.click(within(form).getByRole('radio', { name: 'Website' }));
    fireEvent.change(within(form).getByLabelText('Start URL'), { target: { value: 'https://a.example/' } });
    fireEvent.change(within(form).getByLabelText('Proxy'), { target: { value: 'proxy.local' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add source' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('Proxy: expected host:port.');
    expect(fake.callsOf('addSource')).toEqual([]);
  });

  it('the editor shows a saved source’s values and keeps keys it does not show', async () => {
    const fake = createFakeApi({
      sources: [
        site({
          profile: 'fast',
          maxHops: 4,
          obeyRobots: false,
          minDelayMs: 250,
          userAgent: 'IntranetBot/2',
          proxy: { host: '10.0.0.5', port: 8080 },
          maxPages: 50,
        }),
      ],
    });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Intranet' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Website' }));
    const value = (label: string) => (within(editor).getByLabelText(label) as HTMLInputElement).value;
    const checked = (label: string) => (within(editor).getByLabelText(label) as HTMLInputElement).checked;
    expect(value('Crawl profile')).toBe('fast');
    expect(value('Max link hops')).toBe('4');
    expect(value('Min delay between requests (ms)')).toBe('250');
    expect(value('Max delay between requests (ms)')).toBe('');
    expect(value('User agent')).toBe('IntranetBot/2');
    expect(value('Proxy')).toBe('10.0.0.5:8080');
    expect(checked('Obey robots.txt')).toBe(false);
    expect(checked('Stay on the same host')).toBe(true);

    fireEvent.change(within(editor).getByLabelText('Max link hops'), { target: { value: '' } });
    fireEvent.change(within(editor).getByLabelText('Max path depth'), { target: { value: '6' } });
    fireEvent.click(within(editor).getByLabelText('Stay on the same host'));
    fireEvent.click(within(editor).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(fake.callsOf('updateSource')).toHaveLength(1));
    const settings = (fake.callsOf('updateSource')[0] as { patch: { settings: Record<string, unknown> } })
      .patch.settings;
    expect(settings.http).toEqual({
      maxPages: 50,
      profile: 'fast',
      userAgent: 'IntranetBot/2',
      obeyRobots: false,
      sameHostOnly: false,
      maxPathDepth: 6,
      minDelayMs: 250,
      proxy: { host: '10.0.0.5', port: 8080 },
    });
  });

  it('the editor shows the service’s message when it rejects the settings', async () => {
    const fake = createFakeApi({
      sources: [site({})],
      overrides: {
        updateSource: () => {
          throw new TrawlError('BAD_REQUEST', 'invalid website settings — maxHops: Too big');
        },
      },
    });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Intranet' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Website' }));
    fireEvent.change(within(editor).getByLabelText('Max link hops'), { target: { value: '5000' } });
    fireEvent.click(within(editor).getByRole('button', { name: 'Save changes' }));
    expect((await within(editor).findByRole('alert')).textContent).toContain(
      'invalid website settings — maxHops: Too big',
    );
  });

  it('folder sources have no website tab', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Docs' });
    expect(within(editor).queryByRole('tab', { name: 'Website' })).toBeNull();
  });
});
