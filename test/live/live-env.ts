import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TrawlService } from '../../src/main/core/service.js';
import {
  startBackground,
  type Background,
  type BackgroundOptions,
} from '../../src/main/core/live/background.js';
import type { NewContentSource } from '../../src/main/core/model.js';

/** Generous limit for "searchable within 2 s" on a loaded CI machine; the strict figure is in bench/live.ts. */
export const SLACK_MS = 15_000;

/** A real service over a temp data dir, one folder source, and the background runner on it. */
export interface LiveEnv {
  base: string;
  root: string;
  service: TrawlService;
  bg: Background;
  sourceId: number;
  errors: unknown[];
  /** Result paths for a query, relative to the root, sorted. */
  hits(q: string): string[];
  write(rel: string, content: string): void;
  close(): Promise<void>;
}

export async function liveEnv(
  files: Record<string, string>,
  opts: { source?: Partial<NewContentSource>; bg?: BackgroundOptions; crawlFirst?: boolean } = {},
): Promise<LiveEnv> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-live-'));
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  const write = (rel: string, content: string) => {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  const service = await TrawlService.open({ dataDir: path.join(base, 'data'), filterWorkers: 1 });
  const source = service.addSource({ startAddresses: [root], ...opts.source });
  if (opts.crawlFirst ?? true) await service.crawl({ mode: 'full' });
  const errors: unknown[] = [];
  const bg = await startBackground(service, {
    schedule: false,
    priority: 'none',
    rootCheckMs: 200,
    onError: (e) => errors.push(e),
    ...opts.bg,
  });
  await bg.settle();
  return {
    base,
    root,
    service,
    bg,
    sourceId: source.id,
    errors,
    write,
    hits: (q) =>
      service
        .search({ query: q, limit: 500 })
        .hits.map((h) => path.relative(root, h.path))
        .sort(),
    async close() {
      await bg.stop();
      await service.close();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Poll `pred` every 20 ms; resolves with the ms it took, or throws after `timeoutMs`. */
export async function until(pred: () => boolean, timeoutMs = SLACK_MS, what = 'condition'): Promise<number> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
