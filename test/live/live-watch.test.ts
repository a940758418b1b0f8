import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { liveEnv, sleep, until, SLACK_MS, type LiveEnv } from './live-env.js';

let env: LiveEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const source = (e: LiveEnv) => e.bg.status().sources.find((s) => s.sourceId === e.sourceId)!;

describe('live updates from real file-system events (no crawl)', () => {
  it('makes a created, modified, deleted and renamed file searchable (or gone) within the target', async () => {
    env = await liveEnv({ 'notes/old.txt': 'nothing special here' });
    const e = env;
    const crawlsBefore = e.service.crawls(e.sourceId, 100).filter((c) => c.mode === 'full').length;
    expect(source(e).state).toBe('watching');

    e.write('notes/new.txt', 'a platypus walked in');
    expect(await until(() => e.hits('platypus').length === 1, SLACK_MS, 'created file')).toBeLessThan(
      SLACK_MS,
    );
    expect(e.hits('platypus')).toEqual(['notes/new.txt']);

    e.write('notes/new.txt', 'now about a narwhal');
    await until(
      () => e.hits('narwhal').length === 1 && e.hits('platypus').length === 0,
      SLACK_MS,
      'modified file',
    );

    fs.renameSync(path.join(e.root, 'notes/new.txt'), path.join(e.root, 'notes/renamed.txt'));
    await until(() => e.hits('narwhal').join() === 'notes/renamed.txt', SLACK_MS, 'renamed file');

    fs.rmSync(path.join(e.root, 'notes/renamed.txt'));
    await until(() => e.hits('narwhal').length === 0, SLACK_MS, 'deleted file');

    // all of it through live updates, not crawls
    expect(e.service.crawls(e.sourceId, 100).filter((c) => c.mode === 'full')).toHaveLength(crawlsBefore);
    expect(source(e).liveUpdates).toBeGreaterThanOrEqual(4);
    expect(e.errors).toEqual([]);
  });

  it('moves every file of a renamed folder, and removes a deleted folder with everything below', async () => {
    env = await liveEnv({
      'proj/a.txt': 'quokka one',
      'proj/deep/b.txt': 'quokka two',
      'keep.txt': 'quokka three',
    });
    const e = env;
    expect(e.hits('quokka')).toEqual(['keep.txt', 'proj/a.txt', 'proj/deep/b.txt']);
    fs.renameSync(path.join(e.root, 'proj'), path.join(e.root, 'project'));
    await until(
      () => e.hits('quokka').join() === 'keep.txt,project/a.txt,project/deep/b.txt',
      SLACK_MS,
      'renamed folder',
    );
    fs.rmSync(path.join(e.root, 'project'), { recursive: true });
    await until(() => e.hits('quokka').join() === 'keep.txt', SLACK_MS, 'deleted folder');
  });

  it("applies an editor's write-rename-delete dance as one update", async () => {
    env = await liveEnv({ 'doc.txt': 'first draft about lemurs' });
    const e = env;
    const before = source(e).liveUpdates;
    const p = path.join(e.root, 'doc.txt');
    // what vim and many editors do on save: write a new file, move the old one away, rename, delete
    fs.writeFileSync(`${p}.new`, 'second draft about meerkats');
    fs.renameSync(p, `${p}~`);
    fs.renameSync(`${p}.new`, p);
    fs.rmSync(`${p}~`);
    await until(
      () => e.hits('meerkats').join() === 'doc.txt' && e.hits('lemurs').length === 0,
      SLACK_MS,
      'saved file',
    );
    await e.bg.settle();
    expect(source(e).liveUpdates - before).toBe(1);
  });

  it('indexes a burst of 2,000 files in a handful of batches, folded into the folder', async () => {
    env = await liveEnv({ 'readme.txt': 'hello' });
    const e = env;
    const before = source(e).liveUpdates;
    const dir = path.join(e.root, 'checkout');
    fs.mkdirSync(dir);
    for (let i = 0; i < 2000; i++)
      fs.writeFileSync(path.join(dir, `m${i % 20}-${i}.txt`), `burstword item${i}`);
    await until(
      () => e.service.search({ query: 'burstword', limit: 1 }).total === 2000,
      4 * SLACK_MS,
      'burst',
    );
    await e.bg.settle();
    const st = source(e);
    expect(st.liveUpdates - before).toBeLessThanOrEqual(4); // ideally 1; a loaded machine may split a burst
    expect(st.lastUpdate!.scopes).toBeLessThanOrEqual(2);
    expect(e.service.search({ query: 'item1999' }).hits.map((h) => path.basename(h.path))).toEqual([
      'm19-1999.txt',
    ]);
  });

  it('does not watch excluded folders at all, and never indexes what is in them', async () => {
    env = await liveEnv(
      { 'src/main.txt': 'mainword' },
      { source: { rules: [{ action: 'exclude', syntax: 'glob', pattern: '**/private/**' }] } },
    );
    const e = env;
    const watches = source(e).watches;
    for (const dir of ['private', 'node_modules/pkg', '.hidden']) {
      for (let i = 0; i < 30; i++) e.write(`${dir}/f${i}.txt`, 'secretword');
    }
    e.write('src/visible.txt', 'visibleword');
    await until(() => e.hits('visibleword').length === 1, SLACK_MS, 'included file');
    await sleep(500);
    await e.bg.settle();
    expect(e.hits('secretword')).toEqual([]);
    // only the new included file became a watch; the three excluded trees (90 files) added none
    expect(source(e).watches).toBe(watches + 1);
  });

  it('survives a subfolder and the source folder itself being deleted and recreated', async () => {
    env = await liveEnv({ 'sub/a.txt': 'wombat', 'top.txt': 'toplevel' });
    const e = env;
    fs.rmSync(path.join(e.root, 'sub'), { recursive: true });
    await until(() => e.hits('wombat').length === 0, SLACK_MS, 'subfolder deleted');
    e.write('sub/b.txt', 'wombat again');
    await until(() => e.hits('wombat').join() === 'sub/b.txt', SLACK_MS, 'subfolder recreated');

    fs.rmSync(e.root, { recursive: true });
    await until(() => /missing/.test(source(e).reason ?? ''), SLACK_MS, 'root reported missing');
    expect(source(e).watches).toBe(0);
    fs.mkdirSync(e.root);
    e.write('phoenix.txt', 'risen from ashes');
    await until(() => e.hits('ashes').join() === 'phoenix.txt', SLACK_MS, 'root recreated');
    await until(() => source(e).reason === null, SLACK_MS, 'watching again');
    // and it is watched again, not just crawled once
    e.write('later.txt', 'afterwards');
    await until(() => e.hits('afterwards').join() === 'later.txt', SLACK_MS, 'file in recreated root');
  });

  it('catches up at start-up with changes made while nothing was watching', async () => {
    env = await liveEnv({ 'a.txt': 'alpha' }, { bg: { watch: false } });
    const e = env;
    await e.bg.stop();
    e.write('offline.txt', 'made while stopped');
    fs.rmSync(path.join(e.root, 'a.txt'));
    const { startBackground } = await import('../../src/main/core/live/background.js');
    e.bg = await startBackground(e.service, { schedule: false, priority: 'none' });
    await e.bg.settle();
    expect(e.hits('stopped')).toEqual(['offline.txt']);
    expect(e.hits('alpha')).toEqual([]);
  });

  it('holds changes of a paused source and applies them when it is resumed', async () => {
    env = await liveEnv({ 'a.txt': 'alpha' });
    const e = env;
    e.bg.pause(e.sourceId);
    await until(() => source(e).state === 'paused', SLACK_MS, 'paused');
    e.write('during.txt', 'written during the pause');
    await sleep(800);
    expect(e.hits('pause')).toEqual([]);
    expect(e.service.listSources()[0].paused).toBe(true);
    e.bg.resume(e.sourceId);
    await until(() => e.hits('pause').join() === 'during.txt', SLACK_MS, 'applied after resume');
    expect(source(e).state).toBe('watching');

    e.bg.pause();
    await until(() => source(e).state === 'paused', SLACK_MS, 'globally paused');
    expect(source(e).reason).toBe('all indexing is paused');
    expect(e.bg.isPaused()).toBe(true);
    e.bg.resume();
    await until(() => source(e).state === 'watching', SLACK_MS, 'globally resumed');
  });
});
