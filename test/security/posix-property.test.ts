/**
 * Property: over randomly generated trees of modes, owners, groups and POSIX ACLs (on files and
 * folders), root crawls and each test user's trimmed search returns exactly the files `test -r`
 * as that user allows — zero leaks, zero false hides.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/core/engine.js';
import { posixSecurity, type PosixSecurityProvider } from '../../src/main/core/security/platform-security.js';
import type { CurrentUser } from '../../src/main/core/security/security-provider.js';
import type { TrawlService } from '../../src/main/core/service.js';
import { ensureTestUsers, readableAs, sharedTempDir, type OsUsers } from './os-users.js';

const setup = ensureTestUsers();
const USERS = ['alice', 'bob', 'carol', 'nobody'] as const;

interface NodeSpec {
  mode: number;
  owner: string;
  group: string;
  /** setfacl -m argument, or null for no extended ACL. */
  acl: string | null;
}

interface TreeSpec {
  /** Folder i's parent is the tree root (-1) or an earlier folder. */
  folders: { parent: number; spec: NodeSpec }[];
  files: { parent: number; spec: NodeSpec }[];
}

const perm = fc.constantFrom('-', 'r', 'x', 'rx', 'rw', 'rwx');
const aclArb = fc
  .record({
    entries: fc.uniqueArray(
      fc.tuple(
        fc.constantFrom('u:alice', 'u:bob', 'u:carol', 'u:nobody', 'g:sales', 'g:eng', 'g:alice'),
        perm,
      ),
      { selector: (e) => e[0], minLength: 1, maxLength: 3 },
    ),
    mask: fc.option(perm, { nil: null }),
  })
  .map(({ entries, mask }) =>
    [...entries.map(([who, p]) => `${who}:${p}`), ...(mask ? [`m::${mask}`] : [])].join(','),
  );

// Modes biased towards the interesting ones, but any 9-bit mode can appear.
const modeArb = (common: number[]) =>
  fc.oneof(fc.constantFrom(...common), fc.integer({ min: 0, max: 0o777 }));

const nodeArb = (common: number[]): fc.Arbitrary<NodeSpec> =>
  fc.record({
    mode: modeArb(common),
    owner: fc.constantFrom('root', 'alice', 'bob', 'carol'),
    group: fc.constantFrom('root', 'alice', 'sales', 'eng', 'bob'),
    acl: fc.option(aclArb, { nil: null, freq: 3 }),
  });

const treeArb: fc.Arbitrary<TreeSpec> = fc.integer({ min: 1, max: 4 }).chain((nFolders) =>
  fc.record({
    folders: fc.tuple(
      ...Array.from({ length: nFolders }, (_, i) =>
        fc.record({
          parent: fc.integer({ min: -1, max: i - 1 }),
          spec: nodeArb([0o755, 0o750, 0o700, 0o711, 0o705, 0o770]),
        }),
      ),
    ),
    files: fc.array(
      fc.record({
        parent: fc.integer({ min: -1, max: nFolders - 1 }),
        spec: nodeArb([0o644, 0o640, 0o600, 0o604, 0o044, 0o404, 0o660]),
      }),
      { minLength: 3, maxLength: 10 },
    ),
  }),
);

function apply(p: string, s: NodeSpec): void {
  execFileSync('chown', [`${s.owner}:${s.group}`, p]);
  fs.chmodSync(p, s.mode);
  if (s.acl) execFileSync('setfacl', ['-m', s.acl, p]);
}

describe.skipIf(!setup.ok)(
  `random trees against test -r${setup.ok ? '' : ` (skipped: ${setup.reason})`}`,
  () => {
    const users = (setup as { users: OsUsers }).users;
    let tmp: string;
    let security: PosixSecurityProvider;
    let service: TrawlService;
    const who = new Map<string, CurrentUser>();

    beforeAll(async () => {
      tmp = sharedTempDir('trawl-prop-');
      security = posixSecurity();
      service = await createEngine({ dataDir: path.join(tmp, 'data'), security, filterWorkers: 1 });
      for (const u of USERS) who.set(u, await security.userFromUid(users.uid[u]));
    });

    afterAll(async () => {
      await service?.close();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    let run = 0;
    it('zero leaks and zero false hides for every user, over random trees (20; TRAWL_PROPERTY_RUNS for more)', async () => {
      await fc.assert(
        fc.asyncProperty(treeArb, async (t) => {
          const root = path.join(tmp, `t${run++}`);
          fs.mkdirSync(root, { mode: 0o755 });
          fs.chmodSync(root, 0o755);
          const folders: string[] = [];
          t.folders.forEach((f, i) => {
            const p = path.join(f.parent < 0 ? root : folders[f.parent], `d${i}`);
            fs.mkdirSync(p);
            folders.push(p);
          });
          const files = t.files.map((f, i) => {
            const p = path.join(f.parent < 0 ? root : folders[f.parent], `f${i}.txt`);
            fs.writeFileSync(p, `zebra f${i}\n`);
            apply(p, f.spec);
            return p;
          });
          // Folders last: a folder closed to root's crawl would not matter, but keep setup simple.
          t.folders.forEach((f, i) => apply(folders[i], f.spec));
          const source = service.addSource({ startAddresses: [root] });
          try {
            const [rec] = await service.crawl({ sourceId: source.id, mode: 'full' });
            expect(rec.counts.failed).toBe(0);
            for (const u of USERS) {
              const truth = readableAs(u, files);
              const res = service.forUser(who.get(u)!).search({ query: 'zebra', limit: 1000 });
              const seen = new Set(res.hits.map((h) => h.path));
              const leaks = [...seen].filter((f) => !truth.has(f));
              const hides = [...truth].filter((f) => !seen.has(f));
              expect({ user: u, leaks, hides }).toEqual({ user: u, leaks: [], hides: [] });
              expect(res.total).toBe(truth.size);
            }
          } finally {
            service.removeSource(source.id);
            fs.rmSync(root, { recursive: true, force: true });
          }
        }),
        { numRuns: Number(process.env.TRAWL_PROPERTY_RUNS ?? 20), endOnFailure: true },
      );
    }, 300_000);
  },
);
