/**
 * Generates a deterministic mixed corpus (text, HTML, PDF, DOCX) for the benchmarks: real, valid
 * PDF and DOCX files written from scratch so the bench needs no office suite.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'to',
  'ri',
  'men',
  'sol',
  'va',
  'dor',
  'lin',
  'qua',
  'ber',
  'nix',
  'tel',
  'pra',
  'gon',
  'ul',
  'sen',
  'mor',
  'fi',
  'zel',
  'ar',
];
const COMMON = [
  'the',
  'of',
  'and',
  'to',
  'in',
  'is',
  'for',
  'on',
  'with',
  'as',
  'report',
  'project',
  'budget',
  'meeting',
  'search',
  'index',
  'server',
  'customer',
  'quarter',
  'design',
  'review',
  'policy',
  'network',
  'invoice',
  'travel',
  'contract',
  'release',
  'security',
  'backup',
  'storage',
];

/** A vocabulary of `n` pseudo-words; index 0.. ordered by frequency rank. */
export function vocabulary(n: number, seed = 7): string[] {
  const r = rng(seed);
  const words = new Set<string>(COMMON);
  while (words.size < n) {
    const k = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < k; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Zipf-distributed words from the vocabulary. */
export function textOf(r: () => number, vocab: string[], words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const rank = Math.min(vocab.length - 1, Math.floor(Math.pow(vocab.length, r()) - 1));
    out.push(vocab[rank]);
    if (i % 14 === 13) out.push('.\n');
  }
  return out.join(' ');
}

function pdfEscape(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A valid single-page PDF with Title/Author and the text as lines. */
export function makePdf(title: string, author: string, text: string): Buffer {
  const lines = text
    .split(/\n/)
    .flatMap((l) => l.match(/.{1,90}(\s|$)/g) ?? [])
    .slice(0, 60);
  const stream = [
    'BT',
    '/F1 10 Tf',
    '12 TL',
    '40 800 Td',
    ...lines.map((l) => `(${pdfEscape(l.trim())}) Tj T*`),
    'ET',
  ].join('\n');
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${pdfEscape(title)}) /Author (${pdfEscape(author)}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A minimal zip writer (deflate), enough for DOCX. */
export function makeZip(files: Record<string, string>): Buffer {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content, 'utf8');
    const comp = zlib.deflateRawSync(data);
    const crc = zlib.crc32(data);
    const nameBuf = Buffer.from(name, 'utf8');
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(0, 6);
    h.writeUInt16LE(8, 8);
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(comp.length, 18);
    h.writeUInt32LE(data.length, 22);
    h.writeUInt16LE(nameBuf.length, 26);
    local.push(h, nameBuf, comp);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(comp.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(nameBuf.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, nameBuf);
    offset += h.length + nameBuf.length + comp.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, cd, end]);
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** A valid DOCX with paragraphs and core properties. */
export function makeDocx(title: string, author: string, keywords: string, text: string): Buffer {
  const paras = text
    .split('\n')
    .map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p.trim())}</w:t></w:r></w:p>`)
    .join('');
  return makeZip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paras}</w:body></w:document>`,
    'docProps/core.xml': `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${xmlEscape(title)}</dc:title><dc:creator>${xmlEscape(author)}</dc:creator><cp:keywords>${xmlEscape(keywords)}</cp:keywords></cp:coreProperties>`,
  });
}

/** Options for {@link generateCorpus}. */
export interface CorpusOptions {
  files: number;
  /** Fractions of PDF and DOCX files (the rest: 70% text, 30% HTML). */
  pdf?: number;
  docx?: number;
  seed?: number;
}

/** Write a corpus under `dir` (skipped when it already holds one with the same options). Returns its bytes. */
export function generateCorpus(
  dir: string,
  opts: CorpusOptions,
): { files: number; bytes: number; vocab: string[] } {
  const vocab = vocabulary(20_000);
  const stamp = path.join(dir, '.corpus.json');
  const key = JSON.stringify(opts);
  if (fs.existsSync(stamp)) {
    const s = JSON.parse(fs.readFileSync(stamp, 'utf8'));
    if (s.key === key) return { files: s.files, bytes: s.bytes, vocab };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const r = rng(opts.seed ?? 42);
  let bytes = 0;
  const pdf = opts.pdf ?? 0.05;
  const docx = opts.docx ?? 0.05;
  for (let i = 0; i < opts.files; i++) {
    const folder = path.join(dir, `dept-${i % 20}`, `project-${Math.floor(i / 20) % 50}`);
    fs.mkdirSync(folder, { recursive: true });
    const words = 150 + Math.floor(r() * 900);
    const body = textOf(r, vocab, words);
    const title = textOf(r, vocab, 4)
      .replace(/\s*\.\n?/g, ' ')
      .trim();
    const x = r();
    let file: string;
    let data: Buffer | string;
    if (x < pdf) {
      file = `doc-${i}.pdf`;
      data = makePdf(title, 'Ann Author', body);
    } else if (x < pdf + docx) {
      file = `doc-${i}.docx`;
      data = makeDocx(title, 'Ben Writer', textOf(r, vocab, 3), body);
    } else if (r() < 0.3) {
      file = `page-${i}.html`;
      data = `<!doctype html><html><head><title>${title}</title><meta name="description" content="${textOf(r, vocab, 12).replace(/\n/g, ' ')}"></head><body><h1>${title}</h1><p>${body.replace(/\n/g, '</p><p>')}</p><a href="page-${i + 1}.html">next</a></body></html>`;
    } else {
      file = `note-${i}.txt`;
      data = `${title}\n\n${body}`;
    }
    const p = path.join(folder, file);
    fs.writeFileSync(p, data);
    bytes += Buffer.byteLength(data);
  }
  fs.writeFileSync(stamp, JSON.stringify({ key, files: opts.files, bytes }));
  return { files: opts.files, bytes, vocab };
}

/** The p-th percentile (nearest rank) of `xs`. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** The benchmarks' fixed query set: common, mid and rare words, AND pairs, phrases and prefixes. */
export function querySet(vocab: string[]): string[] {
  const r = rng(99);
  const pick = (lo: number, hi: number): string => vocab[lo + Math.floor(r() * (hi - lo))];
  const qs: string[] = [];
  for (let i = 0; i < 20; i++) qs.push(pick(10, 60));
  for (let i = 0; i < 20; i++) qs.push(pick(200, 1000));
  for (let i = 0; i < 20; i++) qs.push(pick(3000, 15000));
  for (let i = 0; i < 20; i++) qs.push(`${pick(10, 300)} ${pick(100, 2000)}`);
  for (let i = 0; i < 10; i++) qs.push(`"${pick(0, 30)} ${pick(10, 60)}"`);
  for (let i = 0; i < 10; i++) qs.push(`${pick(100, 3000).slice(0, 4)}*`);
  return qs;
}
