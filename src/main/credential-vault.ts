/**
 * Crawl credentials for the desktop app, encrypted with the OS keychain through Electron's
 * `safeStorage` (passed in as a {@link Cipher}) and kept in their own 0600 file in the app's data
 * folder — never in settings or the index. Refuses to store anything when encryption is not
 * available rather than writing secrets in the clear.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Credential } from './core/credential-store.js';
import { TrawlError } from '../shared/rpc.js';

export interface Cipher {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

interface VaultFile {
  version: 1;
  entries: Record<string, string>;
}

export class CredentialVault {
  constructor(
    private readonly file: string,
    private readonly cipher: Cipher,
  ) {}

  private read(): VaultFile {
    try {
      const parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as VaultFile;
      return parsed.version === 1 && typeof parsed.entries === 'object'
        ? parsed
        : { version: 1, entries: {} };
    } catch {
      return { version: 1, entries: {} };
    }
  }

  private write(data: VaultFile): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
    fs.chmodSync(this.file, 0o600);
  }

  async get(id: string): Promise<Credential | null> {
    const blob = this.read().entries[id];
    if (!blob || !this.cipher.isEncryptionAvailable()) return null;
    try {
      return JSON.parse(this.cipher.decryptString(Buffer.from(blob, 'base64'))) as Credential;
    } catch {
      return null;
    }
  }

  async set(id: string, secret: Credential): Promise<void> {
    if (!/^[\w.@-]{1,64}$/.test(id))
      throw new TrawlError('BAD_REQUEST', 'A credential name is 1-64 letters, digits, _ . @ -');
    if (!this.cipher.isEncryptionAvailable()) {
      throw new TrawlError('UNSUPPORTED', 'No system keychain is available to encrypt credentials');
    }
    const data = this.read();
    const plain: Credential = {
      user: secret.user,
      password: secret.password,
      ...(secret.domain ? { domain: secret.domain } : {}),
    };
    data.entries[id] = this.cipher.encryptString(JSON.stringify(plain)).toString('base64');
    this.write(data);
  }

  async delete(id: string): Promise<void> {
    const data = this.read();
    delete data.entries[id];
    this.write(data);
  }

  async ids(): Promise<string[]> {
    return Object.keys(this.read().entries).sort();
  }
}
