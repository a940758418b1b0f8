/** Ordered include/exclude rules, and a box to test a path or URL against the saved rules. */
import { useState } from 'react';
import type { CrawlRule, RuleTestResult } from '../../../shared/contract.js';
import { useApi } from '../api/api-context.js';
import { Field } from '../components/field.js';
import { ChevronDownIcon, ChevronUpIcon, PlusIcon, TrashIcon } from '../components/icons.js';
import { useI18n } from '../i18n/i18n.js';

interface RulesEditorProps {
  rules: CrawlRule[];
  onChange(rules: CrawlRule[]): void;
  sourceId: number;
  dirty: boolean;
  credentialIds: string[] | null;
}

export function RulesEditor({ rules, onChange, sourceId, dirty, credentialIds }: RulesEditorProps) {
  const { t } = useI18n();
  const update = (i: number, patch: Partial<CrawlRule>) =>
    onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const move = (i: number, delta: number) => {
    const j = i + delta;
    if (j < 0 || j >= rules.length) return;
    const next = [...rules];
    [next[i], next[j]] = [next[j], next[i]];
    onChange(next);
  };
  return (
    <div className="rules">
      <p className="muted">{t('rules.hint')}</p>
      {rules.length === 0 ? <p className="rules__none">{t('rules.none')}</p> : null}
      <ol className="rules__list">
        {rules.map((rule, i) => (
          <li className="rule" key={i} data-testid="rule">
            <span className="rule__index">{i + 1}</span>
            <select
              className={`select select--${rule.action}`}
              aria-label={`${t('rules.include')} / ${t('rules.exclude')}`}
              value={rule.action}
              onChange={(e) => update(i, { action: e.target.value as CrawlRule['action'] })}
            >
              <option value="include">{t('rules.include')}</option>
              <option value="exclude">{t('rules.exclude')}</option>
            </select>
            <select
              className="select"
              aria-label="Syntax"
              value={rule.syntax}
              onChange={(e) => update(i, { syntax: e.target.value as CrawlRule['syntax'] })}
            >
              <option value="glob">{t('rules.glob')}</option>
              <option value="regex">{t('rules.regex')}</option>
              <option value="prefix">{t('rules.prefix')}</option>
            </select>
            <input
              className="input input--mono rule__pattern"
              aria-label={t('rules.pattern')}
              value={rule.pattern}
              placeholder="**/*.tmp"
              spellCheck={false}
              onChange={(e) => update(i, { pattern: e.target.value })}
            />
            {credentialIds ? (
              <select
                className="select"
                aria-label={t('rules.credential')}
                value={rule.credentialId ?? ''}
                onChange={(e) => update(i, { credentialId: e.target.value === '' ? null : e.target.value })}
              >
                <option value="">{t('rules.noCredential')}</option>
                {credentialIds.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            ) : null}
            <span className="rule__buttons">
              <button
                type="button"
                className="icon-btn"
                aria-label={t('rules.up')}
                disabled={i === 0}
                onClick={() => move(i, -1)}
              >
                <ChevronUpIcon />
              </button>
              <button
                type="button"
                className="icon-btn"
                aria-label={t('rules.down')}
                disabled={i === rules.length - 1}
                onClick={() => move(i, 1)}
              >
                <ChevronDownIcon />
              </button>
              <button
                type="button"
                className="icon-btn icon-btn--danger"
                aria-label={t('rules.remove')}
                onClick={() => onChange(rules.filter((_, j) => j !== i))}
              >
                <TrashIcon />
              </button>
            </span>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="btn btn--sm"
        onClick={() => onChange([...rules, { action: 'exclude', syntax: 'glob', pattern: '' }])}
      >
        <PlusIcon size={14} />
        {t('rules.add')}
      </button>
      <RuleTester sourceId={sourceId} dirty={dirty} />
    </div>
  );
}

function RuleTester({ sourceId, dirty }: { sourceId: number; dirty: boolean }) {
  const api = useApi();
  const { t } = useI18n();
  const [target, setTarget] = useState('');
  const [result, setResult] = useState<RuleTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const test = async () => {
    if (target.trim() === '') return;
    setError(null);
    try {
      setResult(await api.testRules({ sourceId, target: target.trim() }));
    } catch (err) {
      setResult(null);
      setError((err as Error).message);
    }
  };
  return (
    <div className="rule-tester">
      <Field label={t('rules.test')} hint={dirty ? t('rules.testSaved') : undefined}>
        {(control) => (
          <span className="field__row">
            <input
              {...control}
              className="input input--mono"
              value={target}
              placeholder={t('rules.testPlaceholder')}
              spellCheck={false}
              onChange={(e) => {
                setTarget(e.target.value);
                setResult(null);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void test();
                }
              }}
            />
            <button type="button" className="btn" onClick={() => void test()}>
              {t('rules.testButton')}
            </button>
          </span>
        )}
      </Field>
      {result ? (
        <p
          className={`rule-tester__result ${result.included ? 'is-included' : 'is-excluded'}`}
          role="status"
          data-testid="rule-test-result"
        >
          <strong>{result.included ? t('rules.included') : t('rules.excluded')}</strong>
          <span>{result.reason}</span>
        </p>
      ) : null}
      {error ? (
        <p className="form__error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
