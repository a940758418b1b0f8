import type { IAudioMetadata, IFormat } from 'music-metadata';
import type { Filter, FilterInput, FilterOutput } from './filter.js';
import { FilterError, loadLibrary, unreadable } from './filter.js';
import { mimeForExtension } from './filter-table.js';
import { distinctValues, normalizeLine } from './text-normalization.js';

/**
 * Music and other audio (MP3, FLAC, Ogg Vorbis, Opus, M4A/AAC, WAV, AIFF, WMA): the tags a music
 * library writes — ID3v1/v2, Vorbis comments, iTunes atoms, RIFF INFO, APE, ASF — read by
 * music-metadata; the audio is never decoded.
 *
 * Title, artist (as author), genre (as keywords) and comment (as description) go to their fields;
 * the body is one labelled line per other tag a user searches music by: artist, album and album
 * artist, track and disc, year, composer, conductor, label, the lyrics, and the format (codec,
 * sample rate, channels, length). A large file is given its head first (the `audio` row has
 * `headBytes`): tags mostly come first, and the filter asks for the whole file when the head holds
 * none or ends inside them (a big cover picture; MP4 atoms after the audio; an MP3 with only an
 * ID3v1 tag, at its end). WAV and AIFF without tags in the head are not read whole for them: a
 * recording's data is large and tags after it are rare.
 */

/** Containers whose tags, if any, are not looked for past the head. */
const HEAD_ONLY_CONTAINERS = new Set(['WAVE', 'AIFF', 'AIFF-C']);

const load = () => loadLibrary('Audio metadata support', () => import('music-metadata'));

export const audioFilter: Filter = {
  id: 'audio',
  async extract(input: FilterInput): Promise<FilterOutput> {
    const mm = await load();
    const fallbackMime = mimeForExtension(input.ext) || 'application/octet-stream';
    let meta: IAudioMetadata;
    try {
      meta = await mm.parseBuffer(
        input.bytes,
        { mimeType: input.mime, path: input.name, size: input.bytes.length },
        { skipCovers: true, duration: false },
      );
    } catch (err) {
      if (input.partial) throw needsWhole(input);
      throw unreadable(`${label(input)} file`, err);
    }
    const { format } = meta;
    // Told the name, the library assumes the format and finds nothing in bytes that are no audio.
    if (!format.container && !format.codec && format.tagTypes.length === 0) {
      if (input.partial) throw needsWhole(input);
      throw new FilterError('corrupt', `unreadable ${label(input)} file: no audio stream or tags found`);
    }
    if (input.partial && format.tagTypes.length === 0 && !HEAD_ONLY_CONTAINERS.has(format.container ?? ''))
      throw needsWhole(input);
    return describeAudio(meta, fallbackMime, input.partial === true);
  },
};

function label(input: FilterInput): string {
  return input.ext.toUpperCase() || 'audio';
}

function needsWhole(input: FilterInput): FilterError {
  return new FilterError('needs-whole', `its tags are not within the first ${input.bytes.length} bytes`);
}

/** Container names as music-metadata gives them → MIME types. */
function mimeOf(container: string | undefined, fallback: string): string {
  const c = (container ?? '').toUpperCase();
  if (c === 'MPEG') return 'audio/mpeg';
  if (c === 'FLAC') return 'audio/flac';
  if (c === 'OGG') return fallback.startsWith('audio/') ? fallback : 'audio/ogg';
  if (c.startsWith('M4A') || c.startsWith('MP4') || c.startsWith('ISOM')) return 'audio/mp4';
  if (c === 'WAVE') return 'audio/wav';
  if (c.startsWith('AIFF')) return 'audio/aiff';
  if (c === 'ASF/AUDIO' || c === 'ASF') return 'audio/x-ms-wma';
  return fallback;
}

/** The filter output for parsed tags; `partial` when only the head was read (its length is then unknown). */
function describeAudio(meta: IAudioMetadata, fallbackMime: string, partial = false): FilterOutput {
  const { common, format } = meta;
  const artists = distinctValues(common.artists?.length ? common.artists : [common.artist]);
  const lines: string[] = [];
  const add = (label: string, value: string | undefined): void => {
    const v = normalizeLine(value, 16_384);
    if (v) lines.push(`${label}: ${v}`);
  };
  add('Artist', artists.join(', '));
  add('Album', common.album);
  if (common.albumartist && !artists.some((a) => a.toLowerCase() === common.albumartist!.toLowerCase()))
    add('Album artist', common.albumartist);
  add('Track', ofTotal(common.track));
  add('Disc', ofTotal(common.disk));
  add('Year', common.year ? String(common.year) : common.date);
  add('Composer', distinctValues(common.composer ?? []).join(', '));
  add('Conductor', distinctValues(common.conductor ?? []).join(', '));
  add('Label', distinctValues(common.label ?? []).join(', '));
  add('Format', formatLine(format, partial));
  const lyrics = texts(common.lyrics);
  const comments = texts(common.comment);
  return {
    // Lyrics keep their lines: they are the one long text a song has.
    text: [...lines, ...lyrics.map((l) => `Lyrics:\n${l}`)].join('\n'),
    title: normalizeLine(common.title),
    author: normalizeLine(artists.join(', ')),
    description: normalizeLine(comments.join(' · ')),
    keywords: normalizeLine(distinctValues(common.genre ?? []).join(', ')),
    mime: mimeOf(format.container, fallbackMime),
  };
}

function formatLine(f: IFormat, partial: boolean): string {
  const parts: string[] = [];
  if (f.codec) parts.push(f.codec);
  if (f.sampleRate)
    parts.push(`${(f.sampleRate / 1000).toLocaleString('en', { maximumFractionDigits: 2 })} kHz`);
  if (f.numberOfChannels)
    parts.push(
      f.numberOfChannels === 1
        ? 'mono'
        : f.numberOfChannels === 2
          ? 'stereo'
          : `${f.numberOfChannels} channels`,
    );
  if (!f.lossless && f.bitrate && f.bitrate > 0) parts.push(`${Math.round(f.bitrate / 1000)} kbps`);
  // From a head alone the length would be an estimate over the bytes read, not the file's.
  if (!partial && f.duration && Number.isFinite(f.duration) && f.duration > 0) parts.push(clock(f.duration));
  return parts.join(', ');
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

function ofTotal(n: { no: number | null; of: number | null } | undefined): string | undefined {
  if (!n?.no) return undefined;
  return n.of ? `${n.no} of ${n.of}` : String(n.no);
}

function texts(xs: ({ text?: string } | string)[] | undefined): string[] {
  return distinctValues((xs ?? []).map((x) => (typeof x === 'string' ? x : x.text)));
}
