/** Renders highlighted text as React text nodes and <mark> elements only (never as HTML). */
import { memo } from 'react';
import { parseMarkedSnippet, type Segment } from '../lib/marked-text.js';

export function Segments({ segments }: { segments: Segment[] }) {
  return (
    <>{segments.map((s, i) => (s.hit ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}</>
  );
}

/** An engine snippet (escaped text with `<mark>` around hits). */
export const Snippet = memo(function Snippet({ html, className }: { html: string; className?: string }) {
  return (
    <span className={className}>
      <Segments segments={parseMarkedSnippet(html)} />
    </span>
  );
});
