/**
 * The web shell's gatekeeping, as pure functions of the request headers: Host check (DNS
 * rebinding), Origin / Fetch-Metadata check (other web pages), and the per-launch token.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A fresh 256-bit URL-safe token. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The Host values a request to this server may carry. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** True when the Host header names this server exactly (a rebound DNS name does not). */
export function hostAllowed(headers: IncomingHttpHeaders, port: number): boolean {
  const host = headers.host;
  return typeof host === 'string' && allowedHosts(port).has(host.toLowerCase());
}

/**
 * True unless the browser says the request comes from another site: an `Origin` that is not ours,
 * or `Sec-Fetch-Site: cross-site`/`same-site`. Non-browser clients send neither and pass.
 */
export function originAllowed(headers: IncomingHttpHeaders, port: number): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  return [...allowedHosts(port)].some((host) => origin === `http://${host}`);
}

/** Compares the bearer token in constant time. */
export function tokenMatches(headers: IncomingHttpHeaders, token: string): boolean {
  const auth = headers.authorization;
  if (typeof auth !== 'string' || !auth.startsWith('Bearer ')) return false;
  const given = Buffer.from(auth.slice('Bearer '.length).trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
