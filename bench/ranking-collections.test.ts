import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSmallSet, loadStandard, roffToText } from './ranking-collections.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function tmpDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-coll-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('collection loaders', () => {
  it('reads Cranfield files, numbering queries by position and inverting its grades', () => {
    const dir = tmpDir({
      'cran.all.1400':
        '.I 1\n.T\nwing flutter\n.A\nsmith\n.B\nj. 1\n.W\nflutter of wings .\n.I 2\n.T\nboundary layers\n.W\nlaminar flow\n',
      'cran.qry': '.I 001\n.W\nwhat is flutter ?\n.I 004\n.W\nlaminar boundary layers\n',
      cranqrel: '1 1 1\n1 2 -1\n2 2 4\n',
    });
    const c = loadStandard(dir)!;
    expect(c.docs.map((d) => [d.id, d.title?.trim(), d.text.trim()])).toEqual([
      ['1', 'wing flutter', 'flutter of wings .'],
      ['2', 'boundary layers', 'laminar flow'],
    ]);
    expect(c.queries).toEqual([
      { id: '1', text: 'what is flutter ?', rel: { '1': 4 } },
      { id: '2', text: 'laminar boundary layers', rel: { '2': 1 } },
    ]);
  });

  it('reads SMART .ALL/.QRY/.REL and BEIR collections', () => {
    const smart = loadStandard(
      tmpDir({
        'MED.ALL': '.I 1\n.W\nalpha\n.I 2\n.W\nbeta\n',
        'MED.QRY': '.I 1\n.W\nbeta?\n',
        'MED.REL': '1 0 2 1\n',
      }),
    )!;
    expect(smart.queries).toEqual([{ id: '1', text: 'beta?', rel: { '2': 1 } }]);
    const beir = loadStandard(
      tmpDir({
        'corpus.jsonl': '{"_id":"d1","title":"T","text":"x"}\n{"_id":"d2","title":"","text":"y"}\n',
        'queries.jsonl': '{"_id":"q1","text":"find x"}\n{"_id":"q2","text":"unjudged"}\n',
        'qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1\td1\t2\n',
      }),
    )!;
    expect(beir.docs).toHaveLength(2);
    expect(beir.queries).toEqual([{ id: 'q1', text: 'find x', rel: { d1: 2 } }]);
    expect(loadStandard(tmpDir({ 'readme.txt': 'nothing' }))).toBeNull();
  });

  it('turns roff into sections of plain text', () => {
    const { sections } = roffToText(
      '.\\" comment\n.TH CP 1\n.SH NAME\ncp \\- copy files\n.SH DESCRIPTION\n.B cp\ncopies \\fBSOURCE\\fR to\n.BR dest (1)\n',
    );
    expect(sections.get('NAME')).toBe('cp - copy files');
    expect(sections.get('DESCRIPTION')).toBe('cp copies SOURCE to dest(1)');
  });

  it('ships a hand-judged set whose judgements name real documents', () => {
    const c = loadSmallSet();
    const ids = new Set(c.docs.map((d) => d.id));
    expect(c.queries.length).toBeGreaterThanOrEqual(15);
    for (const q of c.queries)
      for (const id of Object.keys(q.rel)) expect(ids.has(id), `${q.id}: ${id}`).toBe(true);
  });
});
