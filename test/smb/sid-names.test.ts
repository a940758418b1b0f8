/**
 * SID names from a real Samba server: `rpcclient lookupsids` in one process per batch, the
 * principal cache naming the SIDs a user resolves to, and the engine's whoami listing the user's
 * SMB groups by name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/main/core/credential-store.js';
import { createEngine } from '../../src/main/core/engine.js';
import { SmbPrincipalCache } from '../../src/main/core/security/smb-principal-cache.js';
import { withSmbGroupNames } from '../../src/main/core/security/smb-principal-names.js';
import { lookupSidNames, sidLabel } from '../../src/main/core/sources/smb/sid-names.js';
import { ensureUnixAccounts, removeSambaDir, startSamba, type SambaServer } from './samba-server.js';
import { sambaForTests } from './smb-helpers.js';

const RUN = sambaForTests();
const PW = { alice: 'Alice-pw-1', carol: 'Carol-pw-1', trawlcrawl: 'Crawl-pw-1' };
const CRAWL = { user: 'trawlcrawl', password: PW.trawlcrawl };

describe.skipIf(!RUN)('SID names from a real Samba server', () => {
  let server: SambaServer;
  let work: string;
  let rpcLog: string;
  let rpcclient: string;
  const starts = (): string[] => {
    const l = fs.existsSync(rpcLog) ? fs.readFileSync(rpcLog, 'utf8').split('\n').filter(Boolean) : [];
    fs.rmSync(rpcLog, { force: true });
    return l;
  };

  beforeAll(async () => {
    await ensureUnixAccounts(['alice', 'carol', 'trawlcrawl'], { sales: ['alice', 'carol'] });
    server = await startSamba({ shares: [{ name: 'docs' }], accounts: PW, adminUsers: ['trawlcrawl'] });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-sidnames-'));
    rpcLog = path.join(work, 'rpc.log');
    rpcclient = path.join(work, 'rpcclient');
    fs.writeFileSync(rpcclient, `#!/bin/sh\necho "$*" >> '${rpcLog}'\nexec rpcclient "$@"\n`, {
      mode: 0o755,
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (server) removeSambaDir(server);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('names users, Unix mappings, groups and well-known SIDs in one process, unknown ones as null', async () => {
    const alice = await server.sid('alice');
    const domain = alice.replace(/-\d+$/, '');
    const sales = await server.sid('Unix Group\\sales');
    const unixAlice = await server.sid('Unix User\\alice');
    const filler = Array.from({ length: 300 }, (_, i) => `${domain}-${20_000 + i}`);
    starts();
    const names = await lookupSidNames(
      server.url('docs'),
      CRAWL,
      [alice, sales, unixAlice, 'S-1-1-0', 'S-1-5-32-544', ...filler],
      { rpcclient },
    );
    const calls = starts();
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toContain(CRAWL.password);
    expect(sidLabel(names.get(alice)!)).toBe(`TRAWL${server.port}\\alice`);
    expect(names.get(alice)!.type).toBe(1);
    expect(sidLabel(names.get(sales)!)).toBe('Unix Group\\sales');
    expect(sidLabel(names.get(unixAlice)!)).toBe('Unix User\\alice');
    expect(sidLabel(names.get('S-1-1-0')!)).toBe('Everyone');
    expect(sidLabel(names.get('S-1-5-32-544')!)).toBe('BUILTIN\\Administrators');
    expect(filler.every((s) => names.get(s) === null)).toBe(true);
    await expect(
      lookupSidNames(server.url('docs'), { ...CRAWL, password: 'wrong' }, ['S-1-1-0'], { rpcclient }),
    ).rejects.toMatchObject({ code: 'auth' });
  });

  it('the principal cache names what it resolves, once', async () => {
    const dataDir = path.join(work, 'cache');
    fs.mkdirSync(dataDir);
    const store = new FileCredentialStore(dataDir);
    await store.set('crawl', CRAWL);
    const source = {
      id: 1,
      name: 'docs',
      kind: 'smb' as const,
      startAddresses: [server.url('docs')],
      displayAddresses: [server.url('docs')],
      rules: [],
      settings: { smb: { credentialId: 'crawl' } } as never,
      paused: false,
      createdAt: 0,
    };
    const cache = new SmbPrincipalCache(
      () => [source],
      (id) => store.get(id),
      { sidNames: { rpcclient } },
    );
    starts();
    await cache.prefetch('carol');
    expect(starts().filter((c) => c.includes('lookupsids'))).toHaveLength(1);
    const carol = await server.sid('carol');
    const sales = await server.sid('Unix Group\\sales');
    expect(cache.get('carol')).toEqual(expect.arrayContaining([carol, sales]));
    expect(cache.label(carol)).toBe(`TRAWL${server.port}\\carol`);
    expect(cache.label('S-1-5-11')).toBe('NT Authority\\Authenticated Users');
    const user = withSmbGroupNames(
      {
        user: 'carol',
        principals: cache.get('carol'),
        display: 'carol',
        groups: [{ id: 'gid:1', name: 'x' }],
      },
      cache,
    );
    expect(user.groups).toEqual(expect.arrayContaining([{ id: sales, name: 'Unix Group\\sales' }]));
    expect(user.groups!.some((g) => g.id === carol)).toBe(false); // the account itself is no group
    // alice shares carol's groups: only alice's own SIDs are asked about
    await cache.prefetch('alice');
    const asked = starts().filter((c) => c.includes('lookupsids'));
    expect(asked).toHaveLength(1);
    expect(asked[0]).not.toContain(sales);
  });

  it('the engine’s whoami lists the user’s SMB groups by name', async () => {
    const dataDir = path.join(work, 'engine');
    const first = await createEngine({ dataDir, filterWorkers: 1 });
    await first.setCredential('crawl', CRAWL);
    first.addSource({
      startAddresses: [server.url('docs')],
      rules: [{ action: 'include', syntax: 'glob', pattern: '**', credentialId: 'crawl' }],
    });
    await first.close();
    const engine = await createEngine({ dataDir, filterWorkers: 1 });
    try {
      const me = engine.whoami();
      const unixGroup = await server.sid(
        `Unix Group\\${os.userInfo().username === 'root' ? 'root' : 'users'}`,
      );
      expect(me.principals).toContain(unixGroup);
      expect(me.groups).toEqual(
        expect.arrayContaining([{ id: unixGroup, name: expect.stringMatching(/^Unix Group\\/) }]),
      );
    } finally {
      await engine.close();
    }
  });
});
