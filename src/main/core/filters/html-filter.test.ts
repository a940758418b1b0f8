import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { inputOf } from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { htmlFilter, sniffMetaCharset } from './html-filter.js';

const PAGE = `<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>  Quarterly
     report &amp; outlook </title>
  <meta name="description" content="Numbers for the third quarter.">
  <meta name="Keywords" content="finance, quarterly, outlook">
  <meta name="author" content="Grace Hopper">
  <link rel="stylesheet" href="/style.css">
  <link rel="alternate" hreflang="fr" href="/fr/report.html">
  <link rel="alternate stylesheet" href="/alt.css">
  <style>.secret-style { color: red }</style>
  <script>var secretScript = "do not index";</script>
</head>
<body>
  <h1>Revenue grew</h1>
  <p>Sales rose <b>twelve</b> percent.</p><p>Costs fell.</p>
  <noscript>secretNoscript enable JavaScript</noscript>
  <template><p>secretTemplate</p></template>
  <svg><title>secretSvgTitle</title></svg>
  <script type="module">import 'secretModule';</script>
  <ul><li>One</li><li>Two</li></ul>
  <table><tr><td>cell1</td><td>cell2</td></tr></table>
  <a href="next.html#section">Next</a>
  <a href="next.html">Next again</a>
  <a href="#top">Top</a>
  <a href="https://example.org/page?q=1">Elsewhere</a>
  <a href="javascript:alert(1)">Script</a>
  <a href="mailto:someone@example.org">Mail</a>
  <a href="ftp://example.org/file">FTP</a>
  <a href="">Empty</a>
  <map><area href="/map/region" alt="Region"></map>
  <iframe src="widget.html"></iframe>
  <frameset><frame src="//cdn.example.net/frame.html"></frameset>
</body>
</html>`;

describe('html filter', () => {
  it('extracts title, description, keywords and author', async () => {
    const out = await htmlFilter.extract(
      inputOf('report.html', Buffer.from(PAGE), { url: 'http://site.test/docs/report.html' }),
    );
    expect(out.title).toBe('Quarterly report & outlook');
    expect(out.description).toBe('Numbers for the third quarter.');
    expect(out.keywords).toBe('finance, quarterly, outlook');
    expect(out.author).toBe('Grace Hopper');
    expect(out.mime).toBe('text/html');
    expect(out.encoding).toBe('utf-8');
  });

  it('keeps body text and leaves out script, style, noscript, template and the title', async () => {
    const out = await extractInProcess(inputOf('report.html', Buffer.from(PAGE)));
    expect(out.text).toContain('Revenue grew');
    expect(out.text).toContain('Sales rose twelve percent.');
    expect(out.text).not.toMatch(/secret|Quarterly/);
    // Block elements break lines; cells are separated.
    expect(out.text).toContain('Sales rose twelve percent.\nCosts fell.');
    expect(out.text).toContain('One\nTwo');
    expect(out.text).toMatch(/cell1 cell2/);
  });

  it('resolves links against the page URL: http(s)/file only, fragments stripped, de-duplicated', async () => {
    const out = await htmlFilter.extract(
      inputOf('report.html', Buffer.from(PAGE), { url: 'http://site.test/docs/report.html' }),
    );
    expect(out.links).toEqual([
      'http://site.test/fr/report.html',
      'http://site.test/docs/next.html',
      'https://example.org/page?q=1',
      'http://site.test/map/region',
    ]);
    expect(out.embeds).toEqual(['http://site.test/docs/widget.html', 'http://cdn.example.net/frame.html']);
  });

  it('resolves relative links against <base href>, itself relative to the page', async () => {
    const html = `<html><head><base href="/archive/2024/"></head><body><a href="item.html">i</a><a href="../index.html">up</a><a href="/abs">abs</a></body></html>`;
    const out = await htmlFilter.extract(
      inputOf('p.html', Buffer.from(html), { url: 'https://site.test/a/b/page.html' }),
    );
    expect(out.links).toEqual([
      'https://site.test/archive/2024/item.html',
      'https://site.test/archive/index.html',
      'https://site.test/abs',
    ]);
  });

  it('resolves links of local files to file: URLs', async () => {
    const html = `<a href="sub/other.html">o</a><a href="http://example.org/">x</a>`;
    const out = await htmlFilter.extract(
      inputOf('index.html', Buffer.from(html), { url: 'file:///home/ann/site/index.html' }),
    );
    expect(out.links).toEqual(['file:///home/ann/site/sub/other.html', 'http://example.org/']);
  });

  it('decodes entities in text and attributes', async () => {
    const html = `<title>Fish &amp; Chips</title><meta name="description" content="caf&eacute; &#x4e2d;"><p>5 &lt; 6 &nbsp;&mdash; &quot;ok&quot;</p>`;
    const out = await extractInProcess(inputOf('e.html', Buffer.from(html)));
    expect(out.title).toBe('Fish & Chips');
    expect(out.description).toBe('café 中');
    expect(out.text).toBe('5 < 6 — "ok"');
  });

  it('reads the charset from <meta charset> when the protocol gives none', async () => {
    const text = '企业级搜索协议处理程序';
    const html = Buffer.concat([
      Buffer.from('<html><head><meta charset="gbk"><title>'),
      iconv.encode('中文标题', 'gbk'),
      Buffer.from('</title></head><body><p>'),
      iconv.encode(text, 'gbk'),
      Buffer.from('</p></body></html>'),
    ]);
    const out = await htmlFilter.extract(inputOf('zh.html', html));
    expect(out.encoding).toBe('gb18030');
    expect(out.title).toBe('中文标题');
    expect(out.text).toContain(text);
  });

  it('reads the charset from <meta http-equiv="Content-Type">', async () => {
    const html = Buffer.concat([
      Buffer.from(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body>',
      ),
      iconv.encode('日本語のページ', 'shift_jis'),
      Buffer.from('</body></html>'),
    ]);
    const out = await htmlFilter.extract(inputOf('ja.html', html));
    expect(out.encoding).toBe('shift_jis');
    expect(out.text).toContain('日本語のページ');
  });

  it('prefers the protocol charset over <meta>, and detects when neither is given', async () => {
    const big5 = iconv.encode(
      '<html><head><meta charset="utf-8"></head><body>繁體中文網頁內容，用於測試編碼。</body></html>',
      'big5',
    );
    expect((await htmlFilter.extract(inputOf('tw.html', big5, { charset: 'big5' }))).text).toContain(
      '繁體中文網頁內容',
    );
    const undeclared = iconv.encode(
      '<html><body><p>繁體中文網頁內容，用於測試編碼識別是否正確。這是第二句話。</p></body></html>',
      'big5',
    );
    expect((await htmlFilter.extract(inputOf('tw.html', undeclared))).text).toContain('繁體中文網頁內容');
  });

  it('sniffs meta charsets and treats a declared UTF-16 as UTF-8', () => {
    expect(sniffMetaCharset(Buffer.from("<meta charset='windows-1251'>"))).toBe('windows-1251');
    expect(
      sniffMetaCharset(Buffer.from('<META HTTP-EQUIV="content-type" CONTENT="text/html;charset=euc-kr">')),
    ).toBe('euc-kr');
    expect(sniffMetaCharset(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
    expect(sniffMetaCharset(Buffer.from('<p>no declaration</p>'))).toBeUndefined();
  });

  it('falls back to og:title and og:description', async () => {
    const html = `<meta property="og:title" content="Open Graph title"><meta property="og:description" content="OG description"><p>body</p>`;
    const out = await htmlFilter.extract(inputOf('og.html', Buffer.from(html)));
    expect(out.title).toBe('Open Graph title');
    expect(out.description).toBe('OG description');
  });

  it('reports XHTML as XHTML', async () => {
    const out = await htmlFilter.extract(
      inputOf(
        'x.xhtml',
        Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>'),
        { mime: 'application/xhtml+xml' },
      ),
    );
    expect(out.mime).toBe('application/xhtml+xml');
  });
});
