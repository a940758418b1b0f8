import { describe, expect, it } from 'vitest';
import {
  expectFilterError,
  fixtureBytes,
  inputOf,
  within,
} from '../../../../test/fixtures/filters/support.js';
import { fitInput } from './filter-execution.js';
import { jpegSegmentsEndWithin } from './image-filter.js';
import { extractInProcess } from './filter-runner.js';
import { FILTER_TABLE, pickFilter, SNIFF_BYTES } from './filter-table.js';

/**
 * Photos tagged by ExifTool (test/fixtures/filters/make-image-fixtures.sh): each format's EXIF,
 * IPTC, XMP and PNG text become title, author, keywords, description and labelled lines.
 */

const jpegSpec = FILTER_TABLE.find((s) => s.id === 'jpeg')!;
const photo = (name: string) => extractInProcess(inputOf(name, fixtureBytes(name)));

/** A JPEG with an APP1 XMP segment holding `xmp` right after its start-of-image marker. */
function withXmp(jpeg: Buffer, xmp: string): Buffer {
  const payload = Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0'), Buffer.from(xmp)]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]);
}

describe('image filter', () => {
  it('reads a tagged JPEG: XMP, IPTC, EXIF, GPS, Windows tags and named face regions', async () => {
    const out = await photo('sample-photo.jpg');
    expect(out).toMatchObject({
      filter: 'jpeg',
      mime: 'image/jpeg',
      title: 'Lighthouse over Skeppsholmen',
      author: 'Margit Hollander',
      description: 'Fishing boats leave the harbour at dawn',
    });
    // XMP subjects, IPTC keywords, XP keywords and the parts of hierarchical subjects, once each.
    expect(out.keywords!.split(', ')).toEqual([
      'lighthouse',
      'harbour',
      'sunrise',
      'ferry',
      'Baltic',
      'Places',
      'Sweden',
      'Stockholm',
    ]);
    expect(out.text.split('\n')).toEqual([
      'Headline: Dawn at the harbour',
      'Camera: Canon EOS 5D Mark IV',
      'Lens: EF24-70mm f/2.8L II USM',
      'Taken: 2024-05-01 05:42:10',
      'Place: Skeppsholmen, Stockholm, Stockholms län, Sweden',
      'People: Ingrid Lindqvist, Olof Berg',
      'GPS: 59.32510, 18.08490',
      'Comment: tripod, ND filter · shot from Strömbron bridge',
      'Copyright: © 2024 Margit Hollander',
      'Software: darktable 4.6',
      'Size: 96 × 64',
    ]);
  });

  it.each([
    ['sample-photo.png', 'image/png', 'Comment: scanned from a 35 mm negative'],
    ['sample-photo.tif', 'image/tiff', 'Place: Skeppsholmen, Stockholm, Sweden'],
    ['sample-photo.webp', 'image/webp', 'Size: 96 × 64'],
    ['sample-photo.avif', 'image/avif', 'GPS: 59.32510, 18.08490'],
  ])('reads %s', async (name, mime, line) => {
    const out = await photo(name);
    expect(out).toMatchObject({
      filter: 'image',
      mime,
      title: 'Lighthouse over Skeppsholmen',
      author: 'Margit Hollander',
      keywords: 'lighthouse, harbour, sunrise',
    });
    expect(out.text).toContain('Camera: Canon EOS 5D Mark IV');
    expect(out.text).toContain('Taken: 2024-05-01 05:42:10');
    expect(out.text.split('\n')).toContain(line);
  });

  it('indexes an image without any metadata by its size alone, without failing', async () => {
    const out = await photo('sample-photo-bare.jpg');
    expect(out).toMatchObject({ filter: 'jpeg', mime: 'image/jpeg', text: 'Size: 96 × 64' });
    expect(out.title).toBeUndefined();
    expect(out.keywords).toBeUndefined();
  });

  it('fails a file that is no image with a readable reason', async () => {
    const err = await expectFilterError(
      extractInProcess(inputOf('holiday.jpg', Buffer.from('these bytes were never a photograph'))),
      'corrupt',
    );
    expect(err.message).toMatch(/^unreadable JPEG image: /);
  });

  it('reads a large JPEG from its head, and asks for the whole file when its metadata runs past it', async () => {
    const small = fixtureBytes('sample-photo.jpg');
    // Camera JPEGs are megabytes of image data after their metadata segments.
    const big = Buffer.concat([small, Buffer.alloc(3 * 1024 * 1024, 0x5a)]);
    const head = big.subarray(0, jpegSpec.headBytes);
    expect(jpegSegmentsEndWithin(head)).toBe(true);
    const fromHead = await extractInProcess(inputOf('big.jpg', head, { partial: true }));
    expect(fromHead).toEqual(await photo('sample-photo.jpg'));
    // The same photo cut inside its XMP segment: the head is not enough.
    const cut = small.subarray(0, small.indexOf('Lighthouse over') + 5);
    expect(jpegSegmentsEndWithin(cut)).toBe(false);
    const err = await expectFilterError(
      extractInProcess(inputOf('cut.jpg', cut, { partial: true })),
      'needs-whole',
    );
    expect(err.message).toMatch(/metadata runs past the first \d+ bytes/);
  });

  it('expands no DTD entities in XMP (billion laughs, external entities)', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY file SYSTEM "file:///etc/passwd">]><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">&g;&file;</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const out = await within(
      extractInProcess(inputOf('bomb.jpg', withXmp(fixtureBytes('sample-photo-bare.jpg'), bomb))),
      10_000,
    );
    expect(out.title ?? '').not.toMatch(/aaaa|root:/);
    expect(out.text).toBe('Size: 96 × 64');
  });

  it('is chosen by extension, MIME type and signature', () => {
    expect(pickFilter('JPG').id).toBe('jpeg');
    expect(pickFilter('jfif').id).toBe('jpeg');
    expect(pickFilter('', 'image/jpeg').id).toBe('jpeg');
    for (const ext of ['png', 'tif', 'tiff', 'webp', 'avif', 'heic', 'heif'])
      expect(pickFilter(ext).id).toBe('image');
    const head = (name: string) => fixtureBytes(name).subarray(0, SNIFF_BYTES);
    // A photo saved without an extension, or under a wrong one.
    expect(pickFilter('', undefined, head('sample-photo.jpg')).id).toBe('jpeg');
    expect(pickFilter('txt', undefined, head('sample-photo.png')).id).toBe('image');
    expect(pickFilter('', undefined, head('sample-photo.tif')).id).toBe('image');
    expect(pickFilter('bin', undefined, head('sample-photo.webp')).id).toBe('image');
  });

  it('refuses to run a whole-file filter on the head of a larger item', () => {
    const png = FILTER_TABLE.find((s) => s.id === 'image')!;
    expect(() =>
      fitInput(png, inputOf('x.png', fixtureBytes('sample-photo.png'), { partial: true })),
    ).toThrow(/needs the whole file/);
  });
});
