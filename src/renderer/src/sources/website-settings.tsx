/**
 * The website (`settings.http`) fields shared by the add form and the source editor: profile,
 * user agent, robots.txt, scope, delays, read timeout and proxy. Empty fields are left out so the
 * profile defaults apply; the service validates what is sent.
 */
import { Field } from '../components/field.js';
import { useI18n } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages.js';

/** Form state of the website fields: numbers as typed text, booleans as checked. */
export interface WebsiteDraft {
  profile: 'polite' | 'fast';
  userAgent: string;
  obeyRobots: boolean;
  maxHops: string;
  maxPathDepth: string;
  complexUrls: boolean;
  sameHostOnly: boolean;
  sitemaps: boolean;
  minDelayMs: string;
  maxDelayMs: string;
  readTimeoutMs: string;
  proxy: string;
}

const NUMBER_KEYS = ['maxHops', 'maxPathDepth', 'minDelayMs', 'maxDelayMs', 'readTimeoutMs'] as const;
const BOOLEAN_KEYS = ['obeyRobots', 'complexUrls', 'sameHostOnly', 'sitemaps'] as const;
type NumberKey = (typeof NUMBER_KEYS)[number];
type BooleanKey = (typeof BOOLEAN_KEYS)[number];
const FORM_KEYS = new Set<string>(['profile', 'userAgent', 'proxy', ...NUMBER_KEYS, ...BOOLEAN_KEYS]);

/** The engine's defaults for the checkboxes (the same in both profiles). */
const BOOLEAN_DEFAULTS: Record<BooleanKey, boolean> = {
  obeyRobots: true,
  complexUrls: true,
  sameHostOnly: true,
  sitemaps: false,
};

/** Draft of stored `settings.http` (absent fields show as empty / their default). */
export function websiteDraftOf(http: Record<string, unknown> | undefined): WebsiteDraft {
  const h = http ?? {};
  const text = (k: string) => (typeof h[k] === 'number' || typeof h[k] === 'string' ? String(h[k]) : '');
  const bool = (k: BooleanKey) => (typeof h[k] === 'boolean' ? h[k] : BOOLEAN_DEFAULTS[k]);
  const proxy = h.proxy as { host?: unknown; port?: unknown } | null | undefined;
  return {
    profile: h.profile === 'fast' ? 'fast' : 'polite',
    userAgent: text('userAgent'),
    obeyRobots: bool('obeyRobots'),
    maxHops: text('maxHops'),
    maxPathDepth: text('maxPathDepth'),
    complexUrls: bool('complexUrls'),
    sameHostOnly: bool('sameHostOnly'),
    sitemaps: bool('sitemaps'),
    minDelayMs: text('minDelayMs'),
    maxDelayMs: text('maxDelayMs'),
    readTimeoutMs: text('readTimeoutMs'),
    proxy: proxy && typeof proxy.host === 'string' ? `${proxy.host}:${String(proxy.port)}` : '',
  };
}

/** Outcome of turning a draft into `settings.http`: the settings, or the first problem (an i18n key). */
export type WebsiteSettingsResult =
  | { http: Record<string, unknown>; problem: null }
  | { http: null; problem: { key: MessageKey; field: string } };

/**
 * `settings.http` for a draft. Keys of `base` the form does not show (e.g. `maxPages` set through
 * the CLI) are kept; empty fields and checkboxes left at their default are omitted.
 */
export function httpSettingsOf(
  draft: WebsiteDraft,
  base: Record<string, unknown> = {},
): WebsiteSettingsResult {
  const http: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) if (!FORM_KEYS.has(k)) http[k] = v;
  http.profile = draft.profile;
  if (draft.userAgent.trim() !== '') http.userAgent = draft.userAgent.trim();
  for (const k of BOOLEAN_KEYS) if (draft[k] !== BOOLEAN_DEFAULTS[k]) http[k] = draft[k];
  for (const k of NUMBER_KEYS) {
    const text = draft[k].trim();
    if (text === '') continue;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) return { http: null, problem: { key: 'web.notCount', field: k } };
    http[k] = n;
  }
  const proxy = draft.proxy.trim();
  if (proxy !== '') {
    const m = /^(.+):(\d{1,5})$/.exec(proxy);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535)
      return { http: null, problem: { key: 'web.badProxy', field: 'proxy' } };
    http.proxy = { host: m[1].replace(/^\[(.*)\]$/, '$1'), port };
  }
  return { http, problem: null };
}

const LABELS: Record<NumberKey, MessageKey> = {
  maxHops: 'web.maxHops',
  maxPathDepth: 'web.maxPathDepth',
  minDelayMs: 'web.minDelay',
  maxDelayMs: 'web.maxDelay',
  readTimeoutMs: 'web.readTimeout',
};

/** Problem text for a {@link WebsiteSettingsResult} problem. */
export function useWebsiteProblemText(): (problem: { key: MessageKey; field: string }) => string {
  const { t } = useI18n();
  return (p) => t(p.key, { field: p.field === 'proxy' ? t('web.proxy') : t(LABELS[p.field as NumberKey]) });
}

export function WebsiteSettingsFields({
  draft,
  onChange,
}: {
  draft: WebsiteDraft;
  onChange(draft: WebsiteDraft): void;
}) {
  const { t } = useI18n();
  const set = <K extends keyof WebsiteDraft>(key: K, value: WebsiteDraft[K]) =>
    onChange({ ...draft, [key]: value });
  const numberField = (k: NumberKey, hint?: string) => (
    <Field label={t(LABELS[k])} hint={hint}>
      {(c) => (
        <input
          {...c}
          className="input"
          type="number"
          min={0}
          step={1}
          placeholder={t('web.default')}
          value={draft[k]}
          onChange={(e) => set(k, e.target.value)}
        />
      )}
    </Field>
  );
  const check = (k: BooleanKey, label: string) => (
    <label className="check">
      <input type="checkbox" checked={draft[k]} onChange={(e) => set(k, e.target.checked)} />
      <span>{label}</span>
    </label>
  );
  return (
    <section className="website-settings" aria-label={t('web.title')}>
      <div className="grid-2">
        <Field label={t('web.profile')} hint={t('web.profileHint')}>
          {(c) => (
            <select
              {...c}
              className="input"
              value={draft.profile}
              onChange={(e) => set('profile', e.target.value === 'fast' ? 'fast' : 'polite')}
            >
              <option value="polite">{t('web.profile.polite')}</option>
              <option value="fast">{t('web.profile.fast')}</option>
            </select>
          )}
        </Field>
        <Field label={t('web.userAgent')}>
          {(c) => (
            <input
              {...c}
              className="input input--mono"
              placeholder={t('web.default')}
              value={draft.userAgent}
              spellCheck={false}
              onChange={(e) => set('userAgent', e.target.value)}
            />
          )}
        </Field>
        {numberField('maxHops')}
        {numberField('maxPathDepth')}
        {numberField('minDelayMs')}
        {numberField('maxDelayMs')}
        {numberField('readTimeoutMs')}
        <Field label={t('web.proxy')} hint={t('web.proxyHint')}>
          {(c) => (
            <input
              {...c}
              className="input input--mono"
              placeholder="proxy.example.com:3128"
              value={draft.proxy}
              spellCheck={false}
              onChange={(e) => set('proxy', e.target.value)}
            />
          )}
        </Field>
        {check('obeyRobots', t('web.obeyRobots'))}
        {check('complexUrls', t('web.complexUrls'))}
        {check('sameHostOnly', t('web.sameHostOnly'))}
        {check('sitemaps', t('web.sitemaps'))}
      </div>
    </section>
  );
}
