// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('adding a source', () => {
  it('validates the address for the chosen kind, then adds the folder and starts a full crawl', async () => {
    const fake = createFakeApi({ sources: [] });
    render(<App api={fake.api} initialView="sources" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add source' }));
    const form = await screen.findByRole('form', { name: 'Add a source' });
    const address = within(form).getByLabelText('Folder path');
    const submit = within(form).getByRole('button', { name: 'Add source' }) as HTMLButtonElement;

    fireEvent.change(address, { target: { value: 'relative/docs' } });
    fireEvent.blur(address);
    expect(within(form).getByText(/Not a folder path/)).toBeTruthy();
    expect(submit.disabled).toBe(true);

    fireEvent.click(within(form).getByRole('radio', { name: 'Website' }));
    fireEvent.change(within(form).getByLabelText('Start URL'), { target: { value: '/home/alice' } });
    expect(within(form).getByText('Expected an http(s) URL')).toBeTruthy();

    fireEvent.click(within(form).getByRole('radio', { name: 'Folder' }));
    fireEvent.change(within(form).getByLabelText('Folder path'), {
      target: { value: '/home/alice/Documents' },
    });
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);

    await waitFor(() =>
      expect(fake.callsOf('addSource')).toEqual([
        { kind: 'file', startAddresses: ['/home/alice/Documents'] },
      ]),
    );
    await waitFor(() => expect(fake.callsOf('startCrawl')).toEqual([{ sourceId: 1, mode: 'full' }]));
    expect(await screen.findByRole('form', { name: 'Documents' })).toBeTruthy();
  });
});

describe('crawl rules', () => {
  it('adds an ordered exclude rule, saves it, and tests a path against the saved rules', async () => {
    const fake = createFakeApi({
      sources: [
        makeSource(1, 'Docs', '/docs', {
          rules: [{ action: 'include', syntax: 'glob', pattern: '**/*.md' }],
        }),
      ],
    });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Docs' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Crawl rules' }));
    fireEvent.click(within(editor).getByRole('button', { name: 'Add rule' }));
    const rules = within(editor).getAllByTestId('rule');
    expect(rules).toHaveLength(2);
    fireEvent.change(within(rules[1]).getByLabelText('Pattern'), { target: { value: '*.tmp' } });
    fireEvent.click(within(rules[1]).getByRole('button', { name: 'Move up' }));
    expect(within(editor).getByText(/Tests the saved rules/)).toBeTruthy();
    fireEvent.click(within(editor).getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(fake.callsOf('updateSource')).toHaveLength(1));
    const patch = (fake.callsOf('updateSource')[0] as { patch: { rules: unknown[] } }).patch;
    expect(patch.rules).toEqual([
      { action: 'exclude', syntax: 'glob', pattern: '*.tmp' },
      { action: 'include', syntax: 'glob', pattern: '**/*.md' },
    ]);

    fireEvent.change(within(editor).getByPlaceholderText('e.g. notes/draft.tmp'), {
      target: { value: 'notes/draft.tmp' },
    });
    fireEvent.click(within(editor).getByRole('button', { name: 'Test' }));
    const result = await within(editor).findByTestId('rule-test-result');
    expect(result.textContent).toContain('Excluded');
    expect(result.textContent).toContain('*.tmp');
    expect(fake.callsOf('testRules')).toEqual([{ sourceId: 1, target: 'notes/draft.tmp' }]);
  });

  it('saves limits, types and schedule as settings', async () => {
    const fake = createFakeApi({ sources: [makeSource(1, 'Docs', '/docs')] });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Docs' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Files' }));
    fireEvent.change(within(editor).getByLabelText('Maximum file size (MB)'), { target: { value: '5' } });
    fireEvent.change(within(editor).getByLabelText('Never these types'), { target: { value: '.ISO, dmg' } });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Schedule' }));
    fireEvent.change(within(editor).getByLabelText('Incremental crawl every'), { target: { value: '30' } });
    fireEvent.click(within(editor).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(fake.callsOf('updateSource')).toHaveLength(1));
    const settings = (fake.callsOf('updateSource')[0] as { patch: { settings: Record<string, unknown> } })
      .patch.settings;
    expect(settings.maxFileSize).toBe(5 * 1024 * 1024);
    expect(settings.denyTypes).toEqual(['iso', 'dmg']);
    expect(settings.schedule).toEqual({ incrementalMinutes: 30, fullDays: null });
  });

  it('stores a credential without keeping the password in the form', async () => {
    const fake = createFakeApi({
      sources: [makeSource(1, 'Intranet', 'https://intranet.example/', { kind: 'http' })],
    });
    render(<App api={fake.api} initialView="sources" />);
    const editor = await screen.findByRole('form', { name: 'Intranet' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Credentials' }));
    fireEvent.change(within(editor).getByLabelText('Credential name'), { target: { value: 'intranet' } });
    fireEvent.change(within(editor).getByLabelText('User name'), { target: { value: 'alice' } });
    fireEvent.change(within(editor).getByLabelText('Password'), { target: { value: 's3cret' } });
    fireEvent.click(within(editor).getByRole('button', { name: 'Store credential' }));
    await waitFor(() =>
      expect(fake.callsOf('setCredential')).toEqual([
        { id: 'intranet', secret: { user: 'alice', password: 's3cret' } },
      ]),
    );
    await waitFor(() =>
      expect((within(editor).getByLabelText('Password') as HTMLInputElement).value).toBe(''),
    );
  });
});
