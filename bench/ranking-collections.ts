/**
 * Judged collections for the ranking evaluation: the small hand-made set shipped in
 * bench/query-data, a known-item set derived from the machine's man pages, and any standard test
 * collection found on disk (SMART/Cranfield format or BEIR format).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export interface EvalDoc {
  id: string;
  path: string;
  title?: string;
  keywords?: string;
  description?: string;
  text: string;
}

export interface EvalQuery {
  id: string;
  text: string;
  /** Document id → grade (> 0 relevant). */
  rel: Record<string, number>;
}

export interface Collection {
  name: string;
  /** What the collection is (and is not), printed with the figures. */
  note: string;
  docs: EvalDoc[];
  queries: EvalQuery[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The hand-made judged set (bench/query-data/small-judged-set.json). */
export function loadSmallSet(): Collection {
  const j = JSON.parse(fs.readFileSync(path.join(here, 'query-data', 'small-judged-set.json'), 'utf8'));
  return { name: 'small hand-judged set', note: j.note, docs: j.docs, queries: j.queries };
}

/** FNV-1a, for deterministic sampling. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Plain text of a roff man page (good enough for indexing: macros dropped, escapes resolved). */
export function roffToText(src: string): { sections: Map<string, string> } {
  const sections = new Map<string, string>();
  let current = '';
  let buf: string[] = [];
  const flush = (): void => {
    const text = buf.join(' ').replace(/\s+/g, ' ').trim();
    if (current) sections.set(current, [sections.get(current), text].filter(Boolean).join(' '));
    buf = [];
  };
  for (const raw of src.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^[.']\s*\\"/.test(line) || line.startsWith("'")) continue;
    if (line.startsWith('.')) {
      const m = /^\.\s*([A-Za-z]{1,3})\s*(.*)$/.exec(line);
      if (!m) continue;
      const [, macro, args] = m;
      if (macro === 'SH' || macro === 'SS') {
        if (macro === 'SH') {
          flush();
          current = unescapeRoff(args.replace(/"/g, '')).trim().toUpperCase();
        } else {
          buf.push(unescapeRoff(args.replace(/"/g, '')));
        }
      } else if (
        ['B', 'I', 'BR', 'IR', 'RB', 'BI', 'IB', 'RI', 'SM', 'SB', 'IP', 'TP', 'OP'].includes(macro)
      ) {
        const parts = args.match(/"[^"]*"|\S+/g) ?? [];
        const glue =
          macro.length === 2 &&
          macro !== 'IP' &&
          macro !== 'TP' &&
          macro !== 'OP' &&
          macro !== 'SM' &&
          macro !== 'SB'
            ? ''
            : ' ';
        const text = parts.map((p) => p.replace(/^"|"$/g, '')).join(glue);
        if (macro === 'IP') buf.push(unescapeRoff(parts[0]?.replace(/^"|"$/g, '') ?? ''));
        else buf.push(unescapeRoff(text));
      }
      continue;
    }
    buf.push(unescapeRoff(line));
  }
  flush();
  return { sections };
}

function unescapeRoff(s: string): string {
  return s
    .replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\s[+-]?\d/g, '')
    .replace(/\\\*(\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\\((em|en|hy)/g, '-')
    .replace(/\\\((aq|cq|oq)/g, "'")
    .replace(/\\\((dq|lq|rq)/g, '"')
    .replace(/\\\(../g, '')
    .replace(/\\\[[^\]]*\]/g, '')
    .replace(/\\-/g, '-')
    .replace(/\\e/g, '\\')
    .replace(/\\[&,/c|^%]/g, '')
    .replace(/\\ /g, ' ')
    .replace(/\\(.)/g, '$1')
    .replace(/\s+/g, ' ');
}

/**
 * A known-item collection from the man pages installed on this machine (section 1): the query is
 * a page's one-line NAME description, the only relevant document is that page, indexed without
 * its NAME line (title = command name, body = the other sections). Not a standard collection:
 * one judged document per query, judgements derived, not pooled. Returns null when there are none.
 */
export function loadManPages(
  opts: { maxDocs?: number; maxQueries?: number; dir?: string } = {},
): Collection | null {
  const dir = opts.dir ?? '/usr/share/man/man1';
  if (!fs.existsSync(dir)) return null;
  const files = fs
    .readdirSync(dir)
    // The Google Cloud SDK ships ~16,000 near-identical generated pages; they would drown the rest.
    .filter((f) => f.endsWith('.gz') && !f.startsWith('gcloud'))
    .sort();
  const docs: (EvalDoc & { desc: string })[] = [];
  const seenDesc = new Map<string, number>();
  for (const f of files) {
    let src: string;
    try {
      src = zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8');
    } catch {
      continue;
    }
    if (/^\.so\s/m.test(src.slice(0, 400))) continue;
    const { sections } = roffToText(src);
    const name = sections.get('NAME')?.trim() ?? '';
    const m = /^(.+?)\s+-+\s+(.+)$/.exec(name);
    if (!m) continue;
    const desc = m[2].trim();
    const body = [...sections]
      .filter(([k]) => k !== 'NAME')
      .map(([k, v]) => `${k}\n${v}`)
      .join('\n');
    if (desc.split(/\s+/).length < 3 || body.split(/\s+/).length < 50) continue;
    const key = desc.toLowerCase();
    seenDesc.set(key, (seenDesc.get(key) ?? 0) + 1);
    docs.push({ id: f, path: path.join(dir, f), title: m[1].trim(), text: body, desc });
  }
  const unique = docs.filter((d) => seenDesc.get(d.desc.toLowerCase()) === 1);
  const maxDocs = opts.maxDocs ?? 4000;
  const chosen = [...unique].sort((a, b) => hash(a.id) - hash(b.id)).slice(0, maxDocs);
  const queries = chosen
    .slice(0, opts.maxQueries ?? 300)
    .map((d) => ({ id: d.id, text: d.desc, rel: { [d.id]: 1 } }));
  return {
    name: 'man-page known-item set',
    note: `Known-item set derived from ${dir} on this machine, gcloud pages excluded (${chosen.length} pages, ${queries.length} queries: the NAME description finds its page). NOT a standard test collection.`,
    docs: chosen.map(({ desc: _desc, ...d }) => d),
    queries,
  };
}

/**
 * A standard collection in SMART format (Cranfield `cran.all.1400`/`cran.qry`/`cranqrel`, or
 * `*.ALL`/`*.QRY`/`*.REL` as CISI, MED, CACM, NPL, TIME ship), or BEIR format (`corpus.jsonl`,
 * `queries.jsonl`, `qrels/test.tsv`), read from `dir`. Returns null when `dir` holds neither.
 */
export function loadStandard(dir: string): Collection | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir);
  if (files.includes('corpus.jsonl')) return loadBeir(dir);
  const find = (re: RegExp): string | undefined => files.find((f) => re.test(f));
  const all = find(/^cran\.all(\.1400)?$|\.ALL$/i);
  const qry = find(/^cran\.qry$|\.QRY$/i);
  const rel = find(/^cranqrel$|^cran\.qrel$|\.REL$|^qrels?(\.text|\.txt)?$/i);
  if (!all || !qry || !rel) return null;
  const docs = parseSmart(fs.readFileSync(path.join(dir, all), 'latin1')).map((r) => ({
    id: r.id,
    path: `/collection/${r.id}`,
    title: r.fields.T ?? '',
    text: r.fields.W ?? '',
  }));
  const parsedQueries = parseSmart(fs.readFileSync(path.join(dir, qry), 'latin1'));
  const cranfield = /^cran/i.test(all);
  // Cranfield's qrels number queries 1..225 by position, not by their .I numbers.
  const queries: EvalQuery[] = parsedQueries.map((q, i) => ({
    id: cranfield ? String(i + 1) : q.id,
    text: (q.fields.W ?? '').trim(),
    rel: {},
  }));
  const byId = new Map(queries.map((q) => [q.id, q]));
  for (const line of fs.readFileSync(path.join(dir, rel), 'latin1').split('\n')) {
    const p = line.trim().split(/\s+/);
    if (p.length < 2) continue;
    let qid: string;
    let did: string;
    let grade: number;
    if (p.length === 4 && !cranfield)
      [qid, , did, grade] = [p[0], p[1], p[2], Number(p[3])]; // TREC qrels
    else [qid, did, grade] = [String(Number(p[0])), String(Number(p[1])), p.length >= 3 ? Number(p[2]) : 1];
    if (cranfield) grade = grade >= 1 && grade <= 4 ? 5 - grade : grade === 5 ? 1 : 0; // 1 = most relevant
    const q = byId.get(String(Number(qid)) === 'NaN' ? qid : String(Number(qid)));
    if (q && grade > 0) q.rel[did] = Math.max(q.rel[did] ?? 0, grade);
  }
  return {
    name: path.basename(dir),
    note: `Standard collection read from ${dir}.`,
    docs,
    queries: queries.filter((q) => Object.keys(q.rel).length > 0 && q.text),
  };
}

function parseSmart(text: string): { id: string; fields: Record<string, string> }[] {
  const out: { id: string; fields: Record<string, string> }[] = [];
  let cur: { id: string; fields: Record<string, string> } | null = null;
  let field = '';
  for (const line of text.split('\n')) {
    const m = /^\.([A-Z])\s*(\S*)/.exec(line);
    if (m && m[1] === 'I') {
      cur = { id: String(Number(m[2])), fields: {} };
      out.push(cur);
      field = '';
    } else if (m && cur) {
      field = m[1];
      cur.fields[field] = '';
    } else if (cur && field) {
      cur.fields[field] += `${line}\n`;
    }
  }
  return out;
}

function loadBeir(dir: string): Collection {
  const readJsonl = (f: string): Record<string, string>[] =>
    fs
      .readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  const docs = readJsonl('corpus.jsonl').map((d) => ({
    id: String(d._id),
    path: `/collection/${d._id}`,
    title: d.title ?? '',
    text: d.text ?? '',
  }));
  const queries = new Map(
    readJsonl('queries.jsonl').map((q) => [
      String(q._id),
      { id: String(q._id), text: q.text, rel: {} as Record<string, number> },
    ]),
  );
  const qrels = fs
    .readFileSync(path.join(dir, 'qrels', 'test.tsv'), 'utf8')
    .split('\n')
    .slice(1);
  for (const line of qrels) {
    const [qid, did, score] = line.trim().split('\t');
    const q = queries.get(qid);
    if (q && Number(score) > 0) q.rel[did] = Number(score);
  }
  return {
    name: path.basename(dir),
    note: `BEIR-format collection read from ${dir}.`,
    docs,
    queries: [...queries.values()].filter((q) => Object.keys(q.rel).length > 0),
  };
}
