import { describe, expect, it } from 'vitest';
import { urlTerms } from './url-terms.js';

describe('urlTerms', () => {
  it('drops the scheme, decodes escapes and splits on separators, keeping the file name', () => {
    expect(urlTerms('file:///home/al/Quarterly%20Report_2024-final.pdf')).toBe(
      'home al Quarterly Report 2024 final pdf',
    );
    expect(urlTerms('https://intranet.example.com/wiki/index.php?title=Proxy&action=view#top')).toBe(
      'intranet example com wiki index php title Proxy action view top',
    );
    expect(urlTerms('smb://fs01/share/Dept~1/a+b.txt')).toBe('fs01 share Dept 1 a b txt fs 01');
  });

  it('adds camelCase and letter/digit splits after the ordered words', () => {
    expect(urlTerms('/src/HTMLParser/readMe2024.md')).toBe(
      'src HTMLParser readMe2024 md HTML Parser read Me 2024',
    );
  });

  it('handles Windows paths, CJK names and malformed escapes', () => {
    expect(urlTerms('C:\\Users\\ann\\Desktop\\notes.txt')).toBe('C Users ann Desktop notes txt');
    expect(urlTerms('/文档/企业级搜索.docx')).toBe('文档 企业级搜索 docx');
    expect(urlTerms('/a/100%/b%E4%BD%A0.txt')).toBe('a 100 b你 txt');
    expect(urlTerms('')).toBe('');
  });
});
