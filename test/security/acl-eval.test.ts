import { describe, expect, it } from 'vitest';
import { canRead, type RankedAccessEntry } from '../../src/main/core/security/acl-eval.js';

const alice = new Set(['everyone', 'uid:1001', 'gid:1004']);

describe('canRead', () => {
  it('keeps the plain rule for descriptors without ranks or checks: some allow applies, no deny does', () => {
    expect(canRead(null, alice)).toBe(true);
    expect(canRead({ entries: [] }, alice)).toBe(false);
    expect(canRead({ entries: [{ type: 'allow', principal: 'gid:1004' }] }, alice)).toBe(true);
    expect(canRead({ entries: [{ type: 'allow', principal: 'gid:9' }] }, alice)).toBe(false);
    expect(
      canRead(
        {
          entries: [
            { type: 'allow', principal: 'everyone' },
            { type: 'deny', principal: 'uid:1001' },
          ],
        },
        alice,
      ),
    ).toBe(false);
    expect(
      canRead(
        {
          entries: [
            { type: 'deny', principal: 'uid:9' },
            { type: 'allow', principal: 'everyone' },
          ],
        },
        alice,
      ),
    ).toBe(true);
  });

  it('lets the lowest applicable rank decide, and needs every check to grant', () => {
    const ownerBeforeGroupDeny = {
      entries: [
        { type: 'allow' as const, principal: 'uid:1001' },
        { type: 'deny' as const, principal: 'gid:1004', rank: 3 },
        { type: 'allow' as const, principal: 'everyone', rank: 4 },
      ],
    };
    expect(canRead(ownerBeforeGroupDeny, alice)).toBe(true);
    expect(canRead(ownerBeforeGroupDeny, new Set(['everyone', 'uid:1003', 'gid:1004']))).toBe(false);
    expect(canRead(ownerBeforeGroupDeny, new Set(['everyone', 'uid:1002']))).toBe(true);
    const twoChecks = {
      entries: [
        { type: 'allow' as const, principal: 'gid:1004' },
        { type: 'allow' as const, principal: 'uid:1002', check: 1 },
      ],
    };
    expect(canRead(twoChecks, alice)).toBe(false);
    expect(canRead(twoChecks, new Set(['everyone', 'uid:1002', 'gid:1004']))).toBe(true);
  });

  it('matches deny-only principals against deny entries only', () => {
    const token = new Set(['everyone', 'S-1-5-21-1-2-3-1001', 'denyonly:S-1-5-32-544']);
    expect(canRead({ entries: [{ type: 'allow', principal: 'S-1-5-32-544' }] }, token)).toBe(false);
    const denyFirst: RankedAccessEntry[] = [
      { type: 'deny', principal: 'S-1-5-32-544' },
      { type: 'allow', principal: 'everyone', rank: 1 },
    ];
    expect(canRead({ entries: denyFirst }, token)).toBe(false);
    expect(canRead({ entries: [{ type: 'allow', principal: 'S-1-5-21-1-2-3-1001' }] }, token)).toBe(true);
  });
});
