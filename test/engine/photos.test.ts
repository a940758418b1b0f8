import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureBytes } from '../fixtures/filters/support.js';
import { MIGRATIONS } from '../../src/main/core/index/schema.js';
import { crawledFolder, indexFromVersion } from '../helpers/engine.js';

/**
 * A photo folder end to end: ExifTool-tagged JPEG, PNG, TIFF, WebP and AVIF files crawled by the
 * real service through the filter workers, found by what their tags say; a camera-sized JPEG is
 * read only as far as its metadata.
 */

const HEAD = 512 * 1024;
/** A camera-sized JPEG: the tagged sample followed by megabytes of (stand-in) image data. */
const BIG_JPEG = Buffer.concat([fixtureBytes('sample-photo.jpg'), Buffer.alloc(4 * 1024 * 1024, 0x5a)]);

/**
 * A JPEG whose metadata runs past the head: nine 64 KB application segments (as some cameras'
 * maker data and previews) before its EXIF and XMP.
 */
function jpegWithLongSegments(): Buffer {
  const jpeg = fixtureBytes('sample-photo.jpg');
  const segment = Buffer.concat([Buffer.from([0xff, 0xef, 0xff, 0xff]), Buffer.alloc(0xfffd, 0x20)]);
  return Buffer.concat([jpeg.subarray(0, 2), ...Array<Buffer>(9).fill(segment), jpeg.subarray(2)]);
}

let env: Awaited<ReturnType<typeof crawledFolder>>;

beforeAll(async () => {
  env = await crawledFolder('trawl-photos', {
    '2024/IMG_0001.JPG': BIG_JPEG,
    '2024/IMG_0002.JPG': jpegWithLongSegments(),
    '2024/scan.png': fixtureBytes('sample-photo.png'),
    '2024/scan.tif': fixtureBytes('sample-photo.tif'),
    'web/harbour.webp': fixtureBytes('sample-photo.webp'),
    'web/harbour.avif': fixtureBytes('sample-photo.avif'),
    'misc/untagged.jpg': fixtureBytes('sample-photo-bare.jpg'),
    'misc/broken.jpg': Buffer.from('a download that never finished'),
    'misc/notes.txt': 'Camera settings to try next time.',
  });
});

afterAll(() => env.close());

const paths = (q: string) => env.paths(q);

const TAGGED = [
  '2024/IMG_0001.JPG',
  '2024/IMG_0002.JPG',
  '2024/scan.png',
  '2024/scan.tif',
  'web/harbour.avif',
  'web/harbour.webp',
];

describe('photos in a folder source', () => {
  it('finds photos by title, photographer, camera, keywords and place', () => {
    expect(paths('lighthouse skeppsholmen')).toEqual(TAGGED);
    expect(paths('author:hollander')).toEqual(TAGGED);
    expect(paths('"canon eos 5d"')).toEqual(TAGGED);
    expect(paths('sunrise')).toEqual(TAGGED);
    // IPTC sub-location (JPEG, TIFF), named face regions and XP keywords (JPEG).
    expect(paths('skeppsholmen')).toEqual(TAGGED);
    expect(paths('"Ingrid Lindqvist"')).toEqual(['2024/IMG_0001.JPG', '2024/IMG_0002.JPG']);
    expect(paths('baltic ferry')).toEqual(['2024/IMG_0001.JPG', '2024/IMG_0002.JPG']);
    expect(paths('negative')).toEqual(['2024/scan.png']);
    expect(paths('camera')).toEqual([...TAGGED, 'misc/notes.txt'].sort());
  });

  it('shows the photo title and the matching line as the snippet', () => {
    const [hit] = env.service.search({ query: 'Lindqvist', limit: 5 }).hits;
    expect(hit.title).toBe('Lighthouse over Skeppsholmen');
    expect(hit.type).toBe('image/jpeg');
    expect(hit.snippet).toContain('<mark>Lindqvist</mark>, Olof Berg');
  });

  it("reads only a large JPEG's head, the whole file when its metadata runs past the head, and other images whole", () => {
    const reads = (rel: string) =>
      env.opened
        .filter((o) => o.url === pathToFileURL(path.join(env.root, rel)).href)
        .map(({ bytes, truncated }) => ({ bytes, truncated }));
    expect(reads('2024/IMG_0001.JPG')).toEqual([{ bytes: HEAD, truncated: true }]);
    expect(reads('2024/IMG_0002.JPG')).toEqual([
      { bytes: HEAD, truncated: true },
      { bytes: jpegWithLongSegments().length, truncated: false },
    ]);
    expect(reads('2024/scan.tif')).toEqual([
      { bytes: fixtureBytes('sample-photo.tif').length, truncated: false },
    ]);
  });

  it('indexes an untagged photo by name and records a damaged one with its reason', () => {
    expect(paths('untagged')).toEqual(['misc/untagged.jpg']);
    const failed = env.service
      .log({ failedOnly: true })
      .map((l) => [path.relative(env.root, l.url), l.reason]);
    expect(failed).toEqual([['misc/broken.jpg', expect.stringMatching(/^unreadable JPEG image: /)]]);
    expect(paths('broken')).toEqual(['misc/broken.jpg']);
  });

  it('counts a large JPEG whose head is unchanged as not modified, without filtering it again', async () => {
    const file = path.join(env.root, '2024/IMG_0001.JPG');
    // An edit of the image data only (the tags sit in the head): size and timestamps change.
    fs.appendFileSync(file, Buffer.alloc(1024, 0x11));
    env.filtered.length = 0;
    const [rec] = await env.service.crawl({ mode: 'incremental' });
    expect(rec.counts).toMatchObject({ updated: 0, added: 0, notModified: 9, failed: 0 });
    expect(env.filtered).toEqual([]);
    expect(paths('"Ingrid Lindqvist"')).toEqual(['2024/IMG_0001.JPG', '2024/IMG_0002.JPG']);
    // A change to the tags is in the head: the photo is read and indexed again.
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf('Olof Berg');
    expect(at).toBeGreaterThan(0);
    bytes.write('Olga Berg', at, 'latin1');
    fs.writeFileSync(file, bytes);
    const [again] = await env.service.crawl({ mode: 'incremental' });
    expect(again.counts).toMatchObject({ updated: 1, notModified: 8 });
    expect(paths('olga')).toEqual(['2024/IMG_0001.JPG']);
  });
});

describe('an index from before the image filter', () => {
  it('reads the photos it holds by name only again on the next incremental crawl, and nothing else', async () => {
    // What the previous version left: the photos indexed by name only, schema version 7.
    const old = await indexFromVersion(
      'trawl-photos-old',
      {
        'photo.jpg': fixtureBytes('sample-photo.jpg'),
        'scan.png': fixtureBytes('sample-photo.png'),
        'notes.txt': 'Plain notes about lighthouses.',
        'clip.mp4': Buffer.alloc(512, 3),
      },
      7,
      (db) =>
        db
          .prepare(
            "UPDATE documents SET title = NULL, author = NULL, status = 'metadata' WHERE ext IN ('jpg', 'png')",
          )
          .run(),
    );
    try {
      expect(old.service.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const [rec] = await old.service.crawl({ mode: 'incremental' });
      expect(rec.counts).toMatchObject({ updated: 2, notModified: 2, added: 0, deleted: 0, failed: 0 });
      expect(old.filtered.map((u) => path.basename(decodeURIComponent(u))).sort()).toEqual([
        'photo.jpg',
        'scan.png',
      ]);
      expect(old.paths('author:hollander')).toEqual(['photo.jpg', 'scan.png']);
    } finally {
      await old.close();
    }
  });
});
