/**
 * Locale selection and message lookup. The locale follows the system (navigator.languages) unless
 * the user picked one, which is remembered in localStorage.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { catalogs, matchLocale, type Locale, type MessageKey } from './messages.js';

export type LocalePreference = Locale | 'system';
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

interface I18n {
  locale: Locale;
  preference: LocalePreference;
  setPreference(p: LocalePreference): void;
  t: Translate;
}

const STORAGE_KEY = 'trawl.locale';

function systemLocale(): Locale {
  const langs =
    typeof navigator !== 'undefined'
      ? navigator.languages?.length
        ? navigator.languages
        : [navigator.language]
      : [];
  return matchLocale(langs[0]);
}

function readPreference(): LocalePreference {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    if (v === 'en' || v === 'zh-CN') return v;
  } catch {}
  return 'system';
}

/** Builds the lookup for one locale: plural keys by Intl.PluralRules, `{x}` interpolation. */
export function makeTranslate(locale: Locale): Translate {
  const catalog = catalogs[locale];
  const plural = new Intl.PluralRules(locale);
  return (key, params) => {
    let template: string = catalog[key];
    if (params && typeof params.n === 'number' && key.endsWith('_other')) {
      const form = `${key.slice(0, -'_other'.length)}_${plural.select(params.n)}` as MessageKey;
      template = catalog[form] ?? template;
    }
    if (!params) return template;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const v = params[name];
      if (v === undefined) return whole;
      return typeof v === 'number' ? v.toLocaleString(locale) : v;
    });
  };
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children, initial }: { children: ReactNode; initial?: LocalePreference }) {
  const [preference, setPref] = useState<LocalePreference>(() => initial ?? readPreference());
  const [system, setSystem] = useState<Locale>(systemLocale);
  useEffect(() => {
    const onChange = () => setSystem(systemLocale());
    window.addEventListener('languagechange', onChange);
    return () => window.removeEventListener('languagechange', onChange);
  }, []);
  const locale = preference === 'system' ? system : preference;
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
  const setPreference = useCallback((p: LocalePreference) => {
    setPref(p);
    try {
      if (p === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, p);
    } catch {}
  }, []);
  const value = useMemo<I18n>(
    () => ({ locale, preference, setPreference, t: makeTranslate(locale) }),
    [locale, preference, setPreference],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n outside I18nProvider');
  return ctx;
}
