import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beforeId3v1, id3Padded } from '../fixtures/filters/audio-tags.js';
import { fixtureBytes } from '../fixtures/filters/support.js';
import { MIGRATIONS } from '../../src/main/core/index/schema.js';
import { crawledFolder, indexFromVersion } from '../helpers/engine.js';

/**
 * A music folder end to end: songs in every format, crawled by the real service through the
 * filter workers, found by their tags and lyrics; large files are read 1 MiB at first, and whole
 * only when their tags are not in that head.
 */

const MB = 1024 * 1024;
/** A long MP3: its ID3v2 tag first, then megabytes of audio. */
const LONG = Buffer.concat([fixtureBytes('sample-song.mp3'), Buffer.alloc(4 * MB)]);
/** A long MP3 tagged only with ID3v1, at its end. */
const OLD = beforeId3v1(fixtureBytes('sample-song-v1.mp3'), 3 * MB);
/** An MP3 whose ID3v2 tag is 1.5 MB (a large cover picture). */
const COVER = id3Padded(fixtureBytes('sample-song.mp3'), 1.5 * MB);

let env: Awaited<ReturnType<typeof crawledFolder>>;

beforeAll(async () => {
  env = await crawledFolder('trawl-music', {
    'Quartet/03 Harbour Lights.mp3': LONG,
    'Quartet/03 Harbour Lights.flac': fixtureBytes('sample-song.flac'),
    'Quartet/03 Harbour Lights.ogg': fixtureBytes('sample-song.ogg'),
    'Quartet/03 Harbour Lights.opus': fixtureBytes('sample-song.opus'),
    'Quartet/03 Harbour Lights.m4a': fixtureBytes('sample-song.m4a'),
    'Quartet/03 Harbour Lights.wma': fixtureBytes('sample-song.wma'),
    'Recordings/take.wav': fixtureBytes('sample-song.wav'),
    'Recordings/take.aiff': fixtureBytes('sample-song.aiff'),
    'Tapes/old.mp3': OLD,
    'Covers/big-cover.mp3': COVER,
    'Broken/half.mp3': Buffer.from('a download that stopped before the first frame'),
    // Over the HTML filter's 16 MB limit (and under the source's 64 MB).
    'Notes/huge.html': Buffer.alloc(17 * MB, 0x20),
  });
});

afterAll(() => env.close());

const paths = (q: string) => env.paths(q);

const reads = (rel: string) =>
  env.opened
    .filter((o) => o.url === pathToFileURL(path.join(env.root, rel)).href)
    .map(({ bytes, truncated }) => ({ bytes, truncated }));

describe('music in a folder source', () => {
  it('finds songs by title, artist, album, composer, genre and lyrics', () => {
    const tagged = [
      'Covers/big-cover.mp3',
      'Quartet/03 Harbour Lights.flac',
      'Quartet/03 Harbour Lights.m4a',
      'Quartet/03 Harbour Lights.mp3',
      'Quartet/03 Harbour Lights.ogg',
      'Quartet/03 Harbour Lights.opus',
      'Quartet/03 Harbour Lights.wma',
      'Recordings/take.aiff',
      'Recordings/take.wav',
    ];
    expect(paths('author:skeppsholm')).toEqual(tagged);
    expect(paths('"songs from the baltic"')).toEqual(tagged);
    expect(paths('folk')).toEqual([...tagged, 'Tapes/old.mp3'].sort());
    // FFmpeg writes no lyrics into WMA, WAV or AIFF.
    expect(paths('"lighthouse keeps the time"')).toEqual(tagged.filter((p) => !/\.(wma|wav|aiff)$/.test(p)));
    expect(paths('"old harbour song" 1987')).toEqual(['Tapes/old.mp3']);
    const [hit] = env.service.search({ query: 'ferry path:Quartet ext:flac', limit: 5 }).hits;
    expect(hit).toMatchObject({ title: 'Harbour Lights', type: 'audio/flac' });
    expect(hit.snippet).toContain('Lyrics: the <mark>ferry</mark> leaves');
  });

  it('reads a long song 1 MiB far, and whole only when its tags are not in that head', () => {
    expect(reads('Quartet/03 Harbour Lights.mp3')).toEqual([{ bytes: MB, truncated: true }]);
    expect(reads('Tapes/old.mp3')).toEqual([
      { bytes: MB, truncated: true },
      { bytes: OLD.length, truncated: false },
    ]);
    expect(reads('Covers/big-cover.mp3')).toEqual([
      { bytes: MB, truncated: true },
      { bytes: COVER.length, truncated: false },
    ]);
    expect(reads('Recordings/take.wav')).toEqual([
      { bytes: fixtureBytes('sample-song.wav').length, truncated: false },
    ]);
  });

  it('reads no byte of a file over its filter’s limit', () => {
    expect(reads('Notes/huge.html')).toEqual([]);
    const row = env.service.db.prepare("SELECT status, error FROM documents WHERE name = 'huge.html'").get();
    expect(row).toEqual({
      status: 'metadata',
      error: `larger than the html filter's limit (${16 * MB} bytes): indexed by name only`,
    });
  });

  it('records a file that is no audio with its reason, and finds it by name', () => {
    const failed = env.service
      .log({ failedOnly: true })
      .map((l) => [path.relative(env.root, l.url), l.reason]);
    expect(failed).toEqual([['Broken/half.mp3', 'unreadable MP3 file: no audio stream or tags found']]);
    expect(paths('half')).toEqual(['Broken/half.mp3']);
  });
});

describe('a source whose max file size is below a song', () => {
  it('still reads the head of a larger song, and says why one whose tags are not there is indexed by name', async () => {
    const small = await crawledFolder(
      'trawl-music-small',
      { 'long.mp3': LONG, 'old.mp3': OLD },
      { settings: { maxFileSize: 2 * MB } },
    );
    try {
      const [rec] = small.service.crawls();
      expect(rec.counts).toMatchObject({ added: 2, failed: 0 });
      // The head of each; no whole read of the one over the limit.
      expect(small.opened.map((o) => [path.basename(o.url), o.bytes]).sort()).toEqual([
        ['long.mp3', MB],
        ['old.mp3', MB],
      ]);
      expect(small.paths('harbour lights')).toEqual(['long.mp3']);
      const row = small.service.db
        .prepare("SELECT status, error FROM documents WHERE name = 'old.mp3'")
        .get();
      expect(row).toEqual({
        status: 'metadata',
        error: `its tags are not within the first ${MB} bytes, and the file is larger than the source's max file size (${2 * MB} bytes): indexed by name only`,
      });
    } finally {
      await small.close();
    }
  });
});

describe('an index from before the audio filter', () => {
  it('reads the songs it holds by name only again on the next incremental crawl, and nothing else', async () => {
    // What the previous version left: the songs indexed by name only, schema version 8.
    const old = await indexFromVersion(
      'trawl-music-old',
      {
        'song.mp3': fixtureBytes('sample-song.mp3'),
        'song.flac': fixtureBytes('sample-song.flac'),
        'photo.jpg': fixtureBytes('sample-photo.jpg'),
        'notes.txt': 'Set list for Friday.',
      },
      8,
      (db) =>
        db
          .prepare(
            "UPDATE documents SET title = NULL, author = NULL, status = 'metadata' WHERE ext IN ('mp3', 'flac')",
          )
          .run(),
    );
    try {
      expect(old.service.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const [rec] = await old.service.crawl({ mode: 'incremental' });
      expect(rec.counts).toMatchObject({ updated: 2, notModified: 2, added: 0, deleted: 0, failed: 0 });
      expect(old.filtered.map((u) => path.basename(decodeURIComponent(u))).sort()).toEqual([
        'song.flac',
        'song.mp3',
      ]);
      expect(old.paths('author:skeppsholm')).toEqual(['song.flac', 'song.mp3']);
    } finally {
      await old.close();
    }
  });
});
