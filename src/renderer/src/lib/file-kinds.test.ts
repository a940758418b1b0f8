import { describe, expect, it } from 'vitest';
import { catalogs } from '../i18n/messages.js';
import { extensionsOf, FILTER_KINDS, kindOf } from './file-kinds.js';

describe('file kinds', () => {
  it('puts the formats the engine reads in their families', () => {
    expect(kindOf('eml')).toBe('mail');
    expect(kindOf('XLSX')).toBe('sheet');
    expect(kindOf('pptx')).toBe('slides');
    expect(kindOf('rtf')).toBe('document');
    expect(kindOf('epub')).toBe('document');
    expect(kindOf('FLAC')).toBe('audio');
    expect(kindOf('unknownext', 'audio/x-custom')).toBe('audio');
    expect(kindOf('heic')).toBe('image');
    expect(kindOf('unknownext', 'text/plain')).toBe('text');
    expect(kindOf('unknownext')).toBe('other');
  });

  it('offers every family in the type filter with a label in each language, and no extension twice', () => {
    const seen = new Map<string, string>();
    for (const kind of FILTER_KINDS) {
      for (const locale of Object.values(catalogs)) expect(locale[`kind.${kind}`], kind).toBeTruthy();
      for (const ext of extensionsOf(kind)) {
        expect(seen.get(ext), `${ext} in ${kind} and ${seen.get(ext)}`).toBeUndefined();
        seen.set(ext, kind);
      }
    }
  });
});
