import { describe, expect, it } from 'vitest';
import { expectFilterError, fixtureBytes, inputOf } from '../../../../test/fixtures/filters/support.js';
import { extractInProcess } from './filter-runner.js';
import { FILTER_TABLE, pickFilter } from './filter-table.js';
import { id3Padded } from '../../../../test/fixtures/filters/audio-tags.js';

/**
 * Songs tagged by FFmpeg and Mutagen (test/fixtures/filters/make-audio-fixtures.sh): ID3, Vorbis
 * comments, iTunes atoms, RIFF INFO and ASF tags become title, author, keywords, description and
 * labelled lines; a head that holds no tags, or ends inside them, asks for the whole file.
 */

const song = (name: string) => extractInProcess(inputOf(name, fixtureBytes(name)));
const head = (name: string, bytes: Uint8Array, length: number) =>
  extractInProcess(inputOf(name, bytes.subarray(0, length), { partial: true }));

const LYRICS = 'Lyrics:\nthe ferry leaves at dawn, the lighthouse keeps the time';

describe('audio filter', () => {
  it('reads an MP3 tagged with ID3v2.4: title, artists, album, numbers, comment, lyrics', async () => {
    const out = await song('sample-song.mp3');
    expect(out).toMatchObject({
      filter: 'audio',
      mime: 'audio/mpeg',
      title: 'Harbour Lights',
      author: 'The Skeppsholm Quartet',
      description: 'recorded live at Strömbron',
      keywords: 'Folk',
    });
    expect(out.text.split('\n')).toEqual([
      'Artist: The Skeppsholm Quartet',
      'Album: Songs from the Baltic',
      'Album artist: Various Artists',
      'Track: 3 of 11',
      'Disc: 1 of 2',
      'Year: 2023',
      'Composer: Elsa Nordin',
      'Format: MPEG 2 Layer 3, 22.05 kHz, mono, 32 kbps, 0:02',
      'Lyrics:',
      'the ferry leaves at dawn, the lighthouse keeps the time',
    ]);
  });

  it.each([
    ['sample-song.flac', 'audio/flac', 'Format: FLAC, 22.05 kHz, mono, 0:02', true],
    ['sample-song.ogg', 'audio/ogg', 'Format: Vorbis I, 22.05 kHz, mono, 40 kbps, 0:02', true],
    ['sample-song.opus', 'audio/opus', 'Format: Opus, 24 kHz, mono, 18 kbps, 0:02', true],
    ['sample-song.m4a', 'audio/mp4', 'Format: MPEG-4/AAC, 22.05 kHz, stereo, 33 kbps, 0:02', true],
    ['sample-song.wma', 'audio/x-ms-wma', 'Format: Windows Media Audio V8, 32 kbps, 0:02', false],
    ['sample-song.wav', 'audio/wav', 'Format: PCM, 22.05 kHz, mono, 0:02', false],
    ['sample-song.aiff', 'audio/aiff', 'Format: PCM, 22.05 kHz, mono, 0:02', false],
  ])('reads %s', async (name, mime, format, lyrics) => {
    const out = await song(name);
    expect(out).toMatchObject({
      filter: 'audio',
      mime,
      title: 'Harbour Lights',
      author: 'The Skeppsholm Quartet',
      keywords: 'Folk',
    });
    const lines = out.text.split('\n');
    expect(lines).toContain('Album: Songs from the Baltic');
    expect(lines).toContain('Track: 3 of 11');
    expect(lines).toContain(format);
    expect(out.text.includes(LYRICS)).toBe(lyrics);
  });

  it('reads an MP3 with only an ID3v1 tag', async () => {
    const out = await song('sample-song-v1.mp3');
    expect(out).toMatchObject({ title: 'Old Harbour Song', author: 'Nils Ferm', keywords: 'Folk' });
    expect(out.text).toContain('Album: Tape Archive\nYear: 1987');
  });

  it('reads tags from a head, leaving out the length it cannot know', async () => {
    const mp3 = fixtureBytes('sample-song.mp3');
    const whole = await song('sample-song.mp3');
    const fromHead = await head('song.mp3', mp3, 6000);
    expect(fromHead).toEqual({ ...whole, text: whole.text.replace(', 0:02', '') });
    // RIFF INFO before the samples.
    expect((await head('take.wav', fixtureBytes('sample-song.wav'), 4096)).title).toBe('Harbour Lights');
  });

  it('asks for the whole file when the head ends inside the tags or holds none', async () => {
    const tagged = fixtureBytes('sample-song.mp3');
    // A tag padded past the head (a large cover picture does the same).
    const padded = id3Padded(tagged, 200_000);
    expect((await extractInProcess(inputOf('padded.mp3', padded))).title).toBe('Harbour Lights');
    const cases: [string, Uint8Array, number][] = [
      ['padded.mp3', padded, 100_000],
      // ID3v1 sits at the end; iTunes atoms here follow the audio.
      ['old.mp3', fixtureBytes('sample-song-v1.mp3'), 4000],
      ['song.m4a', fixtureBytes('sample-song.m4a'), 3000],
    ];
    for (const [name, bytes, length] of cases) {
      const err = await expectFilterError(head(name, bytes, length), 'needs-whole');
      expect(err.message, name).toBe(`its tags are not within the first ${length} bytes`);
    }
  });

  it('fails a file that is no audio with a readable reason', async () => {
    const err = await expectFilterError(
      extractInProcess(inputOf('song.mp3', Buffer.from('these bytes were never a song at all'))),
      'corrupt',
    );
    expect(err.message).toBe('unreadable MP3 file: no audio stream or tags found');
  });

  it('is chosen by extension and MIME type, and reads heads of 1 MiB', () => {
    for (const ext of ['mp3', 'FLAC', 'ogg', 'oga', 'opus', 'm4a', 'm4b', 'wav', 'aif', 'aiff', 'wma'])
      expect(pickFilter(ext).id, ext).toBe('audio');
    expect(pickFilter('', 'audio/mpeg').id).toBe('audio');
    expect(pickFilter('', 'audio/x-m4a').id).toBe('audio');
    expect(FILTER_TABLE.find((s) => s.id === 'audio')?.headBytes).toBe(1024 * 1024);
  });
});
