/** The query-syntax cheat sheet; clicking an example puts it in the search box. */
import { useI18n } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages.js';
import { CloseIcon } from '../components/icons.js';

const EXAMPLES: [string, MessageKey][] = [
  ['annual report', 'help.and'],
  ['"project plan"', 'help.phrase'],
  ['budget -draft', 'help.not'],
  ['invoice OR receipt', 'help.or'],
  ['(q3 OR q4) sales', 'help.group'],
  ['config*', 'help.prefix'],
  ['title:roadmap', 'help.title_field'],
  ['path:projects/2024', 'help.path'],
  ['ext:pdf', 'help.ext'],
  ['author:alice', 'help.author'],
  ['source:docs', 'help.source'],
  ['modified:>2024-01-01  modified:week', 'help.modified'],
  ['size:>1mb', 'help.size'],
];

export function SyntaxHelp({ onInsert, onClose }: { onInsert(example: string): void; onClose(): void }) {
  const { t } = useI18n();
  return (
    <section className="syntax-help" role="dialog" aria-label={t('help.title')}>
      <header className="syntax-help__header">
        <h2>{t('help.title')}</h2>
        <button type="button" className="icon-btn" onClick={onClose} aria-label={t('common.close')}>
          <CloseIcon />
        </button>
      </header>
      <table className="syntax-help__table">
        <tbody>
          {EXAMPLES.map(([example, key]) => (
            <tr key={example}>
              <td>
                <button type="button" className="code-chip" onClick={() => onInsert(example.split('  ')[0])}>
                  {example}
                </button>
              </td>
              <td>{t(key)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="syntax-help__foot muted">{t('help.insert')}</p>
    </section>
  );
}
