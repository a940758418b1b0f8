import { describe, expect, it } from 'vitest';
import { HTTP_PROFILES, HttpSettingsError, resolveHttpSettings } from './http-settings.js';
import { politenessDelay } from './host-queue.js';

describe('http settings', () => {
  it('defaults to the polite profile with robots obeyed and same-host scope', () => {
    const s = resolveHttpSettings(undefined);
    expect(s).toEqual(HTTP_PROFILES.polite);
    expect(s).toMatchObject({ obeyRobots: true, sameHostOnly: true, perHostConnections: 1 });
    expect(s.minDelayMs).toBeGreaterThan(0);
  });

  it('fills gaps from the chosen profile and keeps explicit values', () => {
    const s = resolveHttpSettings({ profile: 'fast', userAgent: 'IntranetBot/2', maxHops: 3 });
    expect(s).toMatchObject({ ...HTTP_PROFILES.fast, userAgent: 'IntranetBot/2', maxHops: 3 });
    expect(s.delayFactor).toBe(0);
  });

  it('names every invalid field', () => {
    expect(() => resolveHttpSettings({ maxHops: -1, proxy: { host: '', port: 70000 } })).toThrow(
      HttpSettingsError,
    );
    try {
      resolveHttpSettings({ maxHops: -1, proxy: { host: 'p', port: 70000 }, bogus: true });
    } catch (e) {
      expect((e as Error).message).toMatch(/maxHops/);
      expect((e as Error).message).toMatch(/proxy\.port/);
      expect((e as Error).message).toMatch(/bogus/);
    }
  });

  it('raises maxDelayMs to minDelayMs when set below it', () => {
    expect(resolveHttpSettings({ minDelayMs: 5000, maxDelayMs: 100 }).maxDelayMs).toBe(5000);
  });
});

describe('politeness delay', () => {
  const policy = { delayFactor: 5, minDelayMs: 3000, maxDelayMs: 30_000, maxHostBandwidthKBps: 0 };
  it('is factor × duration clamped to [min, max] (Heritrix defaults)', () => {
    expect(politenessDelay(policy, 100, 0, 0)).toBe(3000);
    expect(politenessDelay(policy, 1000, 0, 0)).toBe(5000);
    expect(politenessDelay(policy, 60_000, 0, 0)).toBe(30_000);
  });
  it('is raised to the Crawl-delay and to the bandwidth cap', () => {
    expect(politenessDelay(policy, 100, 0, 45_000)).toBe(45_000);
    expect(politenessDelay({ ...policy, maxHostBandwidthKBps: 100 }, 100, 10 * 1024 * 1024, 0)).toBe(
      Math.round((10 * 1024 * 1024) / 102.4 - 100),
    );
  });
});
