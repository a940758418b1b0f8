import fs from 'node:fs';
import path from 'node:path';

/** A stored secret for crawling (HTTP basic auth, SMB account). */
export interface Credential {
  user: string;
  password: string;
  domain?: string;
}

/** Where crawl credentials live. Never logged; never written to settings or the index. */
export interface CredentialStore {
  get(id: string): Promise<Credential | null>;
  set(id: string, secret: Credential): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ids only (no secrets), for listing in the UI. */
  ids(): Promise<string[]>;
}

/**
 * Credentials in a 0600 file inside the (0700) data directory — the store for the CLI, the web
 * shell and the daemon. The Electron app supplies a `safeStorage`-encrypted store instead.
 */
export class FileCredentialStore implements CredentialStore {
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'credentials.json');
  }

  private read(): Record<string, Credential> {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, Credential>;
    } catch {
      return {};
    }
  }

  private write(all: Record<string, Credential>): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
    fs.chmodSync(this.file, 0o600);
  }

  async get(id: string): Promise<Credential | null> {
    return this.read()[id] ?? null;
  }

  async set(id: string, secret: Credential): Promise<void> {
    const all = this.read();
    all[id] = {
      user: secret.user,
      password: secret.password,
      ...(secret.domain ? { domain: secret.domain } : {}),
    };
    this.write(all);
  }

  async delete(id: string): Promise<void> {
    const all = this.read();
    delete all[id];
    this.write(all);
  }

  async ids(): Promise<string[]> {
    return Object.keys(this.read());
  }
}
