/** Adds a folder, SMB share or website; validates the address as the contract will. */
import { useState, type FormEvent } from 'react';
import { addressProblem } from '../../../shared/addresses.js';
import type { ContentSource, SourceKind } from '../../../shared/contract.js';
import { useApi } from '../api/api-context.js';
import { useAppData } from '../app-data.js';
import { Field } from '../components/field.js';
import { FolderIcon, FolderOpenIcon, GlobeIcon, ServerIcon } from '../components/icons.js';
import { useI18n } from '../i18n/i18n.js';
import {
  httpSettingsOf,
  useWebsiteProblemText,
  websiteDraftOf,
  WebsiteSettingsFields,
} from './website-settings.js';

const KINDS: { kind: SourceKind; icon: typeof FolderIcon }[] = [
  { kind: 'file', icon: FolderIcon },
  { kind: 'smb', icon: ServerIcon },
  { kind: 'http', icon: GlobeIcon },
];

export function AddSourceForm({
  onDone,
  onCancel,
}: {
  onDone(source: ContentSource): void;
  onCancel(): void;
}) {
  const api = useApi();
  const data = useAppData();
  const { t } = useI18n();
  const [kind, setKind] = useState<SourceKind>('file');
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');
  const [crawlNow, setCrawlNow] = useState(true);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [website, setWebsite] = useState(() => websiteDraftOf(undefined));
  const problemText = useWebsiteProblemText();
  const problem = address.trim() === '' ? null : addressProblem(address.trim(), kind);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (address.trim() === '' || problem) return;
    const web = kind === 'http' ? httpSettingsOf(website) : null;
    if (web?.problem) {
      setError(problemText(web.problem));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const source = await api.addSource({
        kind,
        startAddresses: [address.trim()],
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(web?.http ? { settings: { http: web.http } } : {}),
      });
      if (crawlNow) await data.startCrawl(source.id, 'full');
      onDone(source);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const browse = async () => {
    try {
      const picked = await api.pickFolder();
      if (picked) {
        setAddress(picked);
        setKind('file');
      }
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <form className="card form add-source" onSubmit={submit} aria-label={t('add.title')}>
      <h2 className="card__title">{t('add.title')}</h2>
      <div className="segmented" role="radiogroup" aria-label={t('add.kind')}>
        {KINDS.map(({ kind: k, icon: Icon }) => (
          <button
            type="button"
            key={k}
            role="radio"
            aria-checked={kind === k}
            className={`segmented__item${kind === k ? ' is-active' : ''}`}
            onClick={() => setKind(k)}
          >
            <Icon size={15} />
            {t(`add.kind.${k}`)}
          </button>
        ))}
      </div>
      <Field label={t(`add.address.${kind}`)} error={touched ? problem : null}>
        {(control) => (
          <span className="field__row">
            <input
              {...control}
              className="input input--mono"
              value={address}
              placeholder={t(`add.placeholder.${kind}`)}
              onChange={(e) => setAddress(e.target.value)}
              onBlur={() => setTouched(true)}
              autoFocus
              spellCheck={false}
            />
            {kind === 'file' && data.info?.canPickFolder ? (
              <button type="button" className="btn" onClick={() => void browse()}>
                <FolderOpenIcon size={15} />
                {t('add.browse')}
              </button>
            ) : null}
          </span>
        )}
      </Field>
      <Field label={t('add.name')}>
        {(control) => (
          <input {...control} className="input" value={name} onChange={(e) => setName(e.target.value)} />
        )}
      </Field>
      {kind === 'http' ? (
        <>
          <h3 className="section-title">{t('web.title')}</h3>
          <WebsiteSettingsFields draft={website} onChange={setWebsite} />
        </>
      ) : null}
      <label className="check">
        <input type="checkbox" checked={crawlNow} onChange={(e) => setCrawlNow(e.target.checked)} />
        <span>{t('add.crawlNow')}</span>
      </label>
      {error ? (
        <p className="form__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="form__actions">
        <button type="button" className="btn btn--ghost" onClick={onCancel}>
          {t('add.cancel')}
        </button>
        <button
          type="submit"
          className="btn btn--primary"
          disabled={busy || address.trim() === '' || problem !== null}
        >
          {t('add.submit')}
        </button>
      </div>
    </form>
  );
}
