/**
 * A tree for the app-through-the-daemon tests (vitest and Playwright): private, group, ACL and
 * world-readable-in-private-folder files, every one containing "harbour" and its own code word.
 * Ground truth for each user is `test -r` as that user (os-users.ts), never this list.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

interface Spec {
  rel: string;
  mode: number;
  owner?: string;
  group?: string;
  acl?: string;
}

const FOLDERS: Spec[] = [
  { rel: 'public', mode: 0o755 },
  { rel: 'alicehome', mode: 0o700, owner: 'alice' },
  { rel: 'acl', mode: 0o755 },
];

const FILES: Spec[] = [
  { rel: 'public/qxreadme.txt', mode: 0o644 },
  { rel: 'public/qxsalesplan.txt', mode: 0o640, group: 'sales' },
  { rel: 'public/qxengspec.txt', mode: 0o640, group: 'eng' },
  { rel: 'public/qxaliceonly.txt', mode: 0o600, owner: 'alice' },
  { rel: 'public/qxbobonly.txt', mode: 0o600, owner: 'bob' },
  { rel: 'alicehome/qxalicefolder.txt', mode: 0o644 },
  { rel: 'acl/qxgrantbob.txt', mode: 0o600, acl: 'u:bob:r' },
  { rel: 'acl/qxdenyalice.txt', mode: 0o644, acl: 'u:alice:-' },
];

/** The code word of a tree file (its base name): searching it finds that file only. */
export const codeWord = (file: string): string => path.basename(file, '.txt');

function apply(p: string, s: Spec): void {
  if (s.owner || s.group) execFileSync('chown', [`${s.owner ?? 'root'}:${s.group ?? 'root'}`, p]);
  fs.chmodSync(p, s.mode);
  if (s.acl) execFileSync('setfacl', ['-m', s.acl, p]);
}

/** Writes the tree under `dir` (created 0755; needs root, the users and setfacl); returns its files. */
export function writeAppTree(dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const d of FOLDERS) fs.mkdirSync(path.join(dir, d.rel));
  for (const f of FILES) {
    const p = path.join(dir, f.rel);
    fs.writeFileSync(p, `Harbour notes: ${codeWord(f.rel)} and the harbour tide tables.\n`);
    apply(p, f);
  }
  for (const d of FOLDERS) apply(path.join(dir, d.rel), d);
  return FILES.map((f) => path.join(dir, f.rel));
}
