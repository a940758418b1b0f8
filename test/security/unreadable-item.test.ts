/**
 * A file the crawling account cannot open is still indexed by name (and logged as failed), but
 * with the descriptor it has, never as "visible to everyone": alice crawls a folder holding a
 * root-only file, and neither her own searches nor bob's (through the same index) list it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/core/engine.js';
import { posixSecurity } from '../../src/main/core/security/platform-security.js';
import { ensureTestUsers, repoReadableBy, sharedTempDir, type OsUsers } from './os-users.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const setup = ensureTestUsers();

function trawlAs(user: string, args: string[]) {
  const r = spawnSync(
    'runuser',
    ['-u', user, '--', 'env', 'TRAWL_USE_TSX=1', process.execPath, path.join(REPO, 'bin/trawl.mjs'), ...args],
    { cwd: '/', encoding: 'utf8', timeout: 120_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!setup.ok)(
  `an item the crawler cannot open${setup.ok ? '' : ` (skipped: ${setup.reason})`}`,
  () => {
    const users = (setup as { users: OsUsers }).users;
    let tmp: string;
    let tree: string;
    let dataDir: string;

    beforeAll(() => {
      if (!repoReadableBy('alice', REPO))
        throw new Error(`alice cannot read ${REPO}: the CLI runs from there`);
      tmp = sharedTempDir('trawl-unread-');
      tree = path.join(tmp, 'tree');
      dataDir = path.join(tmp, 'data');
      fs.mkdirSync(tree, { mode: 0o755 });
      fs.mkdirSync(dataDir, { mode: 0o700 });
      fs.writeFileSync(path.join(tree, 'zqopen.txt'), 'zqshared words');
      fs.writeFileSync(path.join(tree, 'zqlocked.txt'), 'zqshared secret words');
      fs.chmodSync(path.join(tree, 'zqopen.txt'), 0o644);
      fs.chmodSync(path.join(tree, 'zqlocked.txt'), 0o600); // root's
      execFileSync('chown', ['-R', 'alice:alice', dataDir]);
      execFileSync('chown', ['alice:alice', tree]);
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('indexes it by name with its descriptor, logs the failure, and lists it for no one who may not read it', async () => {
      expect(trawlAs('alice', ['source', 'add', tree, '--data-dir', dataDir]).status).toBe(0);
      const crawl = trawlAs('alice', ['crawl', '--data-dir', dataDir]);
      expect(crawl.status, crawl.stderr).toBe(0);
      expect(crawl.stdout).toMatch(/added 1, .*failed 1/);
      const log = trawlAs('alice', ['log', '--failed', '--data-dir', dataDir]);
      expect(log.stdout).toContain('zqlocked.txt');
      expect(log.stdout.toLowerCase()).toContain('permission denied');

      const search = trawlAs('alice', ['search', 'zqlocked', '--json', '--data-dir', dataDir]);
      expect(search.status, search.stderr).toBe(0);
      expect(JSON.parse(search.stdout).total).toBe(0);
      const shared = JSON.parse(
        trawlAs('alice', ['search', 'zqshared', '--json', '--data-dir', dataDir]).stdout,
      );
      expect(shared.hits.map((h: { path: string }) => path.basename(h.path))).toEqual(['zqopen.txt']);

      // The row exists (findable by name for those who may read it: root), with a descriptor.
      const service = await createEngine({ dataDir });
      try {
        const row = service.db
          .prepare("SELECT acl_id, status FROM documents WHERE path LIKE '%zqlocked.txt'")
          .get() as { acl_id: number | null; status: string };
        expect(row.status).toBe('failed');
        expect(row.acl_id).not.toBeNull();
        const asBob = service.forUser(await posixSecurity().userFromUid(users.uid.bob));
        expect(asBob.search({ query: 'zqlocked' }).total).toBe(0);
        expect(service.search({ query: 'zqlocked' }).total).toBe(1); // root may read it
      } finally {
        await service.close();
      }
    });
  },
);
