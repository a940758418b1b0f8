/** Desktop-only preferences (Electron): the global shortcut and start at login. */
import { useEffect, useState } from 'react';
import type { DesktopSettings } from '../../shared/contract.js';
import { useApi } from './api/api-context.js';
import { Field } from './components/field.js';
import { CloseIcon, KeyIcon } from './components/icons.js';
import { useI18n } from './i18n/i18n.js';
import { useUi } from './ui-context.js';

export function DesktopPrefs() {
  const api = useApi();
  const ui = useUi();
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [settings, setSettings] = useState<DesktopSettings | null>(null);
  const [shortcut, setShortcut] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    api.desktopSettings().then(
      (s) => {
        setSettings(s);
        setShortcut(s.shortcut);
      },
      (e: Error) => setError(e.message),
    );
  }, [api, open]);

  const update = async (patch: { shortcut?: string; startAtLogin?: boolean }) => {
    setError(null);
    try {
      const next = await api.updateDesktopSettings(patch);
      setSettings(next);
      if (!next.shortcutActive) setError(t('desktop.shortcutTaken', { shortcut: next.shortcut }));
      else ui.toast(t('editor.saved'));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <>
      <button type="button" className="nav__item nav__item--quiet" onClick={() => setOpen(true)}>
        <KeyIcon size={16} />
        <span>{t('desktop.title')}</span>
      </button>
      {open ? (
        <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}>
          <section className="card modal" role="dialog" aria-label={t('desktop.title')}>
            <header className="modal__header">
              <h2 className="card__title">{t('desktop.title')}</h2>
              <button
                type="button"
                className="icon-btn"
                aria-label={t('common.close')}
                onClick={() => setOpen(false)}
              >
                <CloseIcon />
              </button>
            </header>
            <Field label={t('desktop.shortcut')} hint={t('desktop.shortcutHint')} error={error}>
              {(c) => (
                <span className="field__row">
                  <input
                    {...c}
                    className="input input--mono"
                    value={shortcut}
                    onChange={(e) => setShortcut(e.target.value)}
                  />
                  <button
                    type="button"
                    className="btn"
                    disabled={!settings || shortcut === settings.shortcut}
                    onClick={() => void update({ shortcut })}
                  >
                    {t('editor.save')}
                  </button>
                </span>
              )}
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={settings?.startAtLogin ?? false}
                disabled={!settings}
                onChange={(e) => void update({ startAtLogin: e.target.checked })}
              />
              <span>{t('desktop.startAtLogin')}</span>
            </label>
          </section>
        </div>
      ) : null}
    </>
  );
}
