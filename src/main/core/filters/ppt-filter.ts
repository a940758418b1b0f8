import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { oleStreams } from './ole-package.js';

/**
 * PowerPoint 97–2003 (`.ppt`, `.pps`): the text of every text atom of the
 * `PowerPoint Document` stream (slides and notes; masters and their placeholder text left out),
 * in stream order, a line per paragraph. Records are walked by their headers (MS-PPT 2.3.1): containers are entered, atoms
 * read or skipped, so a damaged length ends the walk instead of looping.
 */

const PPT_MIME = 'application/vnd.ms-powerpoint';
const TEXT_CHARS_ATOM = 0x0fa0; // UTF-16LE
const TEXT_BYTES_ATOM = 0x0fa8; // the low bytes of UTF-16 code units
const MAIN_MASTER = 0x03f8;
const SLIDE_LIST_WITH_TEXT = 0x0ff0; // instance 1: the masters' text
/** Placeholder texts PowerPoint writes into masters and layouts. */
const BOILERPLATE =
  /^(Click to edit (the )?(Master )?(title|text|subtitle) style|Second level|Third level|Fourth level|Fifth level|\*)$/i;

function walk(stream: Buffer, start: number, end: number, out: string[], depth: number): void {
  let p = start;
  while (p + 8 <= end) {
    const verInstance = stream.readUInt16LE(p);
    const type = stream.readUInt16LE(p + 2);
    const length = stream.readUInt32LE(p + 4);
    const body = p + 8;
    const next = body + length;
    if (next > end) break; // a damaged length: stop here
    if ((verInstance & 0x0f) === 0x0f) {
      const masters = type === MAIN_MASTER || (type === SLIDE_LIST_WITH_TEXT && verInstance >> 4 === 1);
      if (depth < 32 && !masters) walk(stream, body, next, out, depth + 1);
    } else if (type === TEXT_CHARS_ATOM || type === TEXT_BYTES_ATOM) {
      const text =
        type === TEXT_CHARS_ATOM
          ? stream.toString('utf16le', body, body + (length & ~1))
          : stream.toString('latin1', body, next);
      for (const line of text.split(/[\r\v\n]/)) {
        const t = line.trim();
        if (t && !BOILERPLATE.test(t)) out.push(t);
      }
    }
    p = next;
  }
}

export const pptFilter: Filter = {
  id: 'ppt',
  extract: async (input) => extractPpt(input),
};

async function extractPpt(input: FilterInput): Promise<FilterOutput> {
  const ole = await oleStreams(input.bytes, 'PPT');
  const stream = ole.get(['PowerPoint Document']);
  const lines: string[] = [];
  walk(stream, 0, stream.length, lines, 0);
  return { text: lines.join('\n'), ...ole.properties(), mime: PPT_MIME };
}
