/**
 * Edits one source: name and addresses, ordered crawl rules (with the test box), file limits and
 * types, schedule, credentials and field weights. Changes are a draft until saved.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { addressProblem } from '../../../shared/addresses.js';
import type { ContentSource, CrawlRule, FieldWeights, SourceSettings } from '../../../shared/contract.js';
import { useApi } from '../api/api-context.js';
import { isCrawling, useAppData } from '../app-data.js';
import { Field } from '../components/field.js';
import { KeyIcon, PlayIcon, TrashIcon } from '../components/icons.js';
import { useI18n } from '../i18n/i18n.js';
import { useUi } from '../ui-context.js';
import { LiveBadge } from './live-badge.js';
import { RulesEditor } from './rules-editor.js';
import {
  httpSettingsOf,
  useWebsiteProblemText,
  websiteDraftOf,
  WebsiteSettingsFields,
  type WebsiteDraft,
} from './website-settings.js';

type Tab = 'general' | 'website' | 'rules' | 'limits' | 'schedule' | 'credentials' | 'advanced';
const TABS: Tab[] = ['general', 'website', 'rules', 'limits', 'schedule', 'credentials', 'advanced'];
const MB = 1024 * 1024;

interface Draft {
  name: string;
  addresses: string;
  rules: CrawlRule[];
  maxSizeMb: string;
  allowTypes: string;
  denyTypes: string;
  includeHidden: boolean;
  followSymlinks: boolean;
  defaultExcludes: boolean;
  incrementalMinutes: string;
  fullDays: string;
  parallelism: string;
  weights: FieldWeights;
  website: WebsiteDraft;
}

function draftOf(s: ContentSource): Draft {
  const st = s.settings;
  return {
    name: s.name,
    addresses: s.displayAddresses.join('\n'),
    rules: s.rules.map((r) => ({ ...r })),
    maxSizeMb: String(Math.round((st.maxFileSize / MB) * 100) / 100),
    allowTypes: st.allowTypes.join(', '),
    denyTypes: st.denyTypes.join(', '),
    includeHidden: st.includeHidden,
    followSymlinks: st.followSymlinks,
    defaultExcludes: st.defaultExcludes,
    incrementalMinutes: st.schedule.incrementalMinutes ? String(st.schedule.incrementalMinutes) : '',
    fullDays: st.schedule.fullDays ? String(st.schedule.fullDays) : '',
    parallelism: String(st.parallelism),
    weights: { ...st.weights },
    website: websiteDraftOf(st.http),
  };
}

function typeList(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((x) => x.trim().toLowerCase().replace(/^\./, ''))
    .filter((x) => x !== '');
}

function positiveOrNull(text: string): number | null {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) && n >= 1 ? Math.round(n) : null;
}

export function SourceEditor({ source, onRemoved }: { source: ContentSource; onRemoved(): void }) {
  const api = useApi();
  const data = useAppData();
  const ui = useUi();
  const { t } = useI18n();
  const [tab, setTab] = useState<Tab>('general');
  const original = useMemo(() => draftOf(source), [source]);
  const [draft, setDraft] = useState<Draft>(original);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [credentialIds, setCredentialIds] = useState<string[]>([]);
  const problemText = useWebsiteProblemText();
  const tabs = TABS.filter((x) => x !== 'website' || source.kind === 'http');

  useEffect(() => {
    setDraft(original);
    setError(null);
  }, [original]);
  useEffect(() => {
    api.credentialIds().then(setCredentialIds, () => {});
  }, [api]);

  const dirty = JSON.stringify(draft) !== JSON.stringify(original);
  const addresses = draft.addresses
    .split('\n')
    .map((a) => a.trim())
    .filter(Boolean);
  const addressErrors = addresses
    .map((a) => addressProblem(a, source.kind))
    .filter((p): p is string => p !== null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const save = async (e?: FormEvent) => {
    e?.preventDefault();
    if (addressErrors.length > 0 || addresses.length === 0) {
      setTab('general');
      return;
    }
    const badRule = draft.rules.findIndex((r) => r.pattern.trim() === '');
    if (badRule !== -1) {
      setTab('rules');
      setError(t('rules.emptyPattern', { n: badRule + 1 }));
      return;
    }
    const web = source.kind === 'http' ? httpSettingsOf(draft.website, source.settings.http) : null;
    if (web?.problem) {
      setTab('website');
      setError(problemText(web.problem));
      return;
    }
    const settings: Partial<SourceSettings> = {
      maxFileSize: Math.max(0, Math.round(Number(draft.maxSizeMb || '0') * MB)),
      allowTypes: typeList(draft.allowTypes),
      denyTypes: typeList(draft.denyTypes),
      includeHidden: draft.includeHidden,
      followSymlinks: draft.followSymlinks,
      defaultExcludes: draft.defaultExcludes,
      parallelism: Math.max(0, Math.round(Number(draft.parallelism) || 0)),
      weights: draft.weights,
      schedule: {
        incrementalMinutes: positiveOrNull(draft.incrementalMinutes),
        fullDays: positiveOrNull(draft.fullDays),
      },
      ...(web?.http ? { http: web.http } : {}),
    };
    setSaving(true);
    setError(null);
    try {
      await api.updateSource({
        id: source.id,
        patch: {
          name: draft.name.trim() || source.name,
          startAddresses: addresses,
          rules: draft.rules.map((r) => ({ ...r, pattern: r.pattern.trim() })),
          settings,
        },
      });
      await data.refresh();
      ui.toast(t('editor.saved'));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    if (!window.confirm(t('editor.deleteConfirm', { name: source.name }))) return;
    try {
      await api.removeSource({ id: source.id });
      await data.refresh();
      onRemoved();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const crawling = isCrawling(data, source.id);
  return (
    <form className="card editor" onSubmit={save} aria-label={source.name}>
      <header className="editor__header">
        <div>
          <h2 className="card__title">{source.name}</h2>
          <p className="editor__address">{source.displayAddresses.join(', ')}</p>
          <LiveBadge live={data.live?.sources.find((l) => l.sourceId === source.id)} />
        </div>
        <div className="editor__header-actions">
          <button
            type="button"
            className="btn btn--sm"
            disabled={crawling}
            onClick={() => void data.startCrawl(source.id, 'incremental')}
          >
            <PlayIcon size={13} />
            {t('editor.crawl')}
          </button>
          <button
            type="button"
            className="icon-btn icon-btn--danger"
            aria-label={t('editor.delete')}
            title={t('editor.delete')}
            onClick={() => void remove()}
          >
            <TrashIcon />
          </button>
        </div>
      </header>
      <nav className="tabs" role="tablist">
        {tabs.map((x) => (
          <button
            type="button"
            role="tab"
            key={x}
            aria-selected={tab === x}
            className={`tab${tab === x ? ' is-active' : ''}`}
            onClick={() => setTab(x)}
          >
            {t(`editor.${x}`)}
          </button>
        ))}
      </nav>
      <div className="editor__body" role="tabpanel">
        {tab === 'general' ? (
          <>
            <Field label={t('editor.name')}>
              {(c) => (
                <input
                  {...c}
                  className="input"
                  value={draft.name}
                  onChange={(e) => set('name', e.target.value)}
                />
              )}
            </Field>
            <Field
              label={t('editor.addresses')}
              hint={t('editor.addressesHint')}
              error={addressErrors.length > 0 ? addressErrors.join('; ') : null}
            >
              {(c) => (
                <textarea
                  {...c}
                  className="input input--mono"
                  rows={3}
                  value={draft.addresses}
                  spellCheck={false}
                  onChange={(e) => set('addresses', e.target.value)}
                />
              )}
            </Field>
          </>
        ) : null}
        {tab === 'website' && source.kind === 'http' ? (
          <WebsiteSettingsFields draft={draft.website} onChange={(w) => set('website', w)} />
        ) : null}
        {tab === 'rules' ? (
          <RulesEditor
            rules={draft.rules}
            onChange={(rules) => set('rules', rules)}
            sourceId={source.id}
            dirty={JSON.stringify(draft.rules) !== JSON.stringify(original.rules)}
            credentialIds={source.kind === 'file' ? null : credentialIds}
          />
        ) : null}
        {tab === 'limits' ? (
          <div className="grid-2">
            <Field label={t('limits.maxSize')} hint={t('limits.maxSizeHint')}>
              {(c) => (
                <input
                  {...c}
                  className="input"
                  type="number"
                  min={0}
                  step="any"
                  value={draft.maxSizeMb}
                  onChange={(e) => set('maxSizeMb', e.target.value)}
                />
              )}
            </Field>
            <div />
            <Field label={t('limits.allow')} hint={t('limits.allowHint')}>
              {(c) => (
                <input
                  {...c}
                  className="input input--mono"
                  value={draft.allowTypes}
                  placeholder="pdf, docx, md"
                  onChange={(e) => set('allowTypes', e.target.value)}
                />
              )}
            </Field>
            <Field label={t('limits.deny')}>
              {(c) => (
                <input
                  {...c}
                  className="input input--mono"
                  value={draft.denyTypes}
                  placeholder="iso, dmg"
                  onChange={(e) => set('denyTypes', e.target.value)}
                />
              )}
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={draft.includeHidden}
                onChange={(e) => set('includeHidden', e.target.checked)}
              />
              <span>{t('limits.hidden')}</span>
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={draft.followSymlinks}
                onChange={(e) => set('followSymlinks', e.target.checked)}
              />
              <span>{t('limits.symlinks')}</span>
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={draft.defaultExcludes}
                onChange={(e) => set('defaultExcludes', e.target.checked)}
              />
              <span>{t('limits.defaultExcludes')}</span>
            </label>
          </div>
        ) : null}
        {tab === 'schedule' ? (
          <div className="schedule">
            <Field label={t('schedule.incremental')} inline suffix={<span>{t('schedule.minutes')}</span>}>
              {(c) => (
                <input
                  {...c}
                  className="input input--narrow"
                  type="number"
                  min={1}
                  value={draft.incrementalMinutes}
                  onChange={(e) => set('incrementalMinutes', e.target.value)}
                />
              )}
            </Field>
            <Field label={t('schedule.full')} inline suffix={<span>{t('schedule.days')}</span>}>
              {(c) => (
                <input
                  {...c}
                  className="input input--narrow"
                  type="number"
                  min={1}
                  value={draft.fullDays}
                  onChange={(e) => set('fullDays', e.target.value)}
                />
              )}
            </Field>
            <p className="field__hint">{t('schedule.off')}</p>
          </div>
        ) : null}
        {tab === 'credentials' ? (
          <Credentials ids={credentialIds} onStored={(ids) => setCredentialIds(ids)} />
        ) : null}
        {tab === 'advanced' ? (
          <div>
            <h3 className="section-title">{t('adv.weights')}</h3>
            <p className="field__hint">{t('adv.weightsHint')}</p>
            <div className="weights">
              {(Object.keys(draft.weights) as (keyof FieldWeights)[]).map((k) => (
                <label className="weight" key={k}>
                  <span>{t(`adv.${k}`)}</span>
                  <input
                    type="range"
                    min={0}
                    max={20}
                    step={0.5}
                    value={draft.weights[k]}
                    onChange={(e) => set('weights', { ...draft.weights, [k]: Number(e.target.value) })}
                  />
                  <output>{draft.weights[k]}</output>
                </label>
              ))}
            </div>
            <Field label={t('adv.parallelism')}>
              {(c) => (
                <input
                  {...c}
                  className="input input--narrow"
                  type="number"
                  min={0}
                  max={64}
                  value={draft.parallelism}
                  onChange={(e) => set('parallelism', e.target.value)}
                />
              )}
            </Field>
          </div>
        ) : null}
      </div>
      {error ? (
        <p className="form__error" role="alert">
          {error}
        </p>
      ) : null}
      {tab !== 'credentials' ? (
        <footer className="editor__footer">
          {dirty ? <span className="editor__dirty">{t('editor.unsaved')}</span> : <span />}
          <span className="form__actions">
            <button
              type="button"
              className="btn btn--ghost"
              disabled={!dirty}
              onClick={() => setDraft(original)}
            >
              {t('editor.revert')}
            </button>
            <button type="submit" className="btn btn--primary" disabled={!dirty || saving}>
              {t('editor.save')}
            </button>
          </span>
        </footer>
      ) : null}
    </form>
  );
}

function Credentials({ ids, onStored }: { ids: string[]; onStored(ids: string[]): void }) {
  const api = useApi();
  const data = useAppData();
  const ui = useUi();
  const { t } = useI18n();
  const [id, setId] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [domain, setDomain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const store = async () => {
    setError(null);
    try {
      await api.setCredential({
        id: id.trim(),
        secret: { user, password, ...(domain.trim() ? { domain: domain.trim() } : {}) },
      });
      ui.toast(t('cred.saved', { id: id.trim() }));
      setPassword('');
      onStored(await api.credentialIds());
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const where = data.info?.transport === 'electron' ? t('cred.whereElectron') : t('cred.whereWeb');
  return (
    <div className="credentials">
      <p className="field__hint">{t('cred.hint', { where })}</p>
      <div className="grid-2">
        <Field label={t('cred.id')}>
          {(c) => (
            <input
              {...c}
              className="input input--mono"
              value={id}
              onChange={(e) => setId(e.target.value)}
              placeholder="intranet"
            />
          )}
        </Field>
        <Field label={t('cred.domain')}>
          {(c) => (
            <input {...c} className="input" value={domain} onChange={(e) => setDomain(e.target.value)} />
          )}
        </Field>
        <Field label={t('cred.user')}>
          {(c) => (
            <input
              {...c}
              className="input"
              value={user}
              autoComplete="off"
              onChange={(e) => setUser(e.target.value)}
            />
          )}
        </Field>
        <Field label={t('cred.password')}>
          {(c) => (
            <input
              {...c}
              className="input"
              type="password"
              value={password}
              autoComplete="new-password"
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
      </div>
      {error ? (
        <p className="form__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="form__actions">
        <button
          type="button"
          className="btn btn--primary"
          disabled={!id.trim() || !user}
          onClick={() => void store()}
        >
          <KeyIcon size={14} />
          {t('cred.save')}
        </button>
      </div>
      <h3 className="section-title">{t('cred.stored')}</h3>
      {ids.length === 0 ? (
        <p className="muted">{t('cred.none')}</p>
      ) : (
        <ul className="chip-list">
          {ids.map((x) => (
            <li key={x} className="code-chip code-chip--static">
              <KeyIcon size={12} /> {x}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
