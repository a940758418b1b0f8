/** The result-type icon: a small document shape tinted by file family, labelled with the extension. */
import { kindOf, type FileKind } from '../lib/file-kinds.js';
import { GlobeIcon } from './icons.js';

export function FileBadge({
  ext,
  mime,
  url,
  size = 'md',
}: {
  ext: string;
  mime?: string;
  url?: string;
  size?: 'sm' | 'md';
}) {
  const kind: FileKind = kindOf(ext, mime, url);
  const label = (ext || (kind === 'web' ? 'web' : 'file')).slice(0, 4).toUpperCase();
  const isPage = kind === 'web' && !ext;
  return (
    <span className={`file-badge file-badge--${size}`} data-kind={kind} aria-hidden="true">
      <svg viewBox="0 0 32 40" className="file-badge__shape">
        <path
          d="M4 2h17l9 9v25a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2z"
          className="file-badge__page"
        />
        <path d="M21 2v7a2 2 0 0 0 2 2h7" className="file-badge__fold" />
      </svg>
      {isPage ? (
        <GlobeIcon className="file-badge__glyph" size={size === 'sm' ? 10 : 13} />
      ) : (
        <span className="file-badge__label">{label}</span>
      )}
    </span>
  );
}
