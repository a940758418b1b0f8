import fs from 'node:fs';
import path from 'node:path';

/**
 * Generated website fixtures: a static multi-page site on disk (for nginx) and small documents
 * (a one-page text PDF) served by the misbehaving test server.
 */

/** One page of a generated site. */
export interface SitePage {
  /** Path below the site root, e.g. `section-3/page-12.html`. */
  rel: string;
  /** A word that occurs only on this page (to prove it is searchable). */
  word: string;
  title: string;
}

/** Unique, stemming-proof token for page `i` (letters only, so the tokenizer keeps it whole). */
export function pageWord(i: number): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  let n = i;
  let s = '';
  do {
    s = letters[n % letters.length] + s;
    n = Math.floor(n / letters.length);
  } while (n > 0);
  return `zq${s}word`;
}

function pageHtml(p: SitePage, links: string[], extra = ''): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${p.title}</title>
<meta name="description" content="Description of ${p.title}">
<meta name="keywords" content="fixture, ${p.word}">
</head><body>
<h1>${p.title}</h1>
<p>This page talks about ${p.word} and the quarterly planning of the fixture site.</p>
${extra}
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul>
</body></html>
`;
}

/**
 * Write a site of `pages` pages under `root`: `index.html` links to `sections` section indexes,
 * each section index links to its pages; every page links back home and to its neighbours.
 * Returns every page (index and section pages included), in breadth-first order.
 */
export function writeSite(
  root: string,
  pages: number,
  sections = Math.max(1, Math.ceil(pages / 50)),
): SitePage[] {
  fs.mkdirSync(root, { recursive: true });
  const all: SitePage[] = [];
  const index: SitePage = { rel: 'index.html', word: pageWord(0), title: 'Fixture site home' };
  all.push(index);
  const sectionPages: SitePage[][] = [];
  let n = 1;
  for (let s = 0; s < sections; s++) sectionPages.push([]);
  for (let i = 0; i < pages; i++) {
    const s = i % sections;
    sectionPages[s].push({
      rel: `section-${s}/page-${i}.html`,
      word: pageWord(n++),
      title: `Fixture page ${i}`,
    });
  }
  const sectionIndexes = sectionPages.map((_, s) => ({
    rel: `section-${s}/index.html`,
    word: pageWord(n++),
    title: `Fixture section ${s}`,
  }));
  all.push(...sectionIndexes);
  for (const sp of sectionPages) all.push(...sp);
  const write = (p: SitePage, links: string[]): void => {
    const file = path.join(root, p.rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, pageHtml(p, links));
  };
  write(
    index,
    sectionIndexes.map((s) => `/${s.rel.replace(/index\.html$/, '')}`),
  );
  sectionIndexes.forEach((si, s) => write(si, ['/', ...sectionPages[s].map((p) => `/${p.rel}`)]));
  sectionPages.forEach((sp) =>
    sp.forEach((p, i) =>
      write(p, [
        '/',
        `./${path.basename(sp[(i + 1) % sp.length].rel)}`,
        `#top`,
        `mailto:someone@example.invalid`,
      ]),
    ),
  );
  return all;
}

/** Replace a page's unique word by `newWord` (and bump its mtime so its validators change). */
export function rewritePage(root: string, p: SitePage, newWord: string): void {
  const file = path.join(root, p.rel);
  const html = fs.readFileSync(file, 'utf8').split(p.word).join(newWord);
  fs.writeFileSync(file, html);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(file, later, later);
}

/** A minimal, valid one-page PDF whose text is `text` (ASCII). */
export function minimalPdf(text: string): Buffer {
  const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 18 Tf 50 700 Td (${escaped}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
