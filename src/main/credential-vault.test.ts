import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialVault, type Cipher } from './credential-vault.js';

/** A stand-in for safeStorage: reversible, and visibly not plain text. */
function fakeCipher(available = true): Cipher {
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => Buffer.from(Buffer.from(plain, 'utf8').map((b) => b ^ 0x5a)),
    decryptString: (enc) => Buffer.from(enc.map((b) => b ^ 0x5a)).toString('utf8'),
  };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-vault-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('CredentialVault', () => {
  it('stores secrets encrypted in a 0600 file and reads them back', async () => {
    const file = path.join(tmp, 'a', 'credentials.enc.json');
    const vault = new CredentialVault(file, fakeCipher());
    await vault.set('nas', { user: 'alice', password: 'correct horse', domain: 'CORP' });
    await vault.set('intranet', { user: 'bob', password: 'pw2' });
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw).not.toContain('correct horse');
    expect(raw).not.toContain('alice');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await vault.get('nas')).toEqual({ user: 'alice', password: 'correct horse', domain: 'CORP' });
    expect(await vault.ids()).toEqual(['intranet', 'nas']);
    await vault.delete('nas');
    expect(await vault.get('nas')).toBe(null);
    expect(await new CredentialVault(file, fakeCipher()).ids()).toEqual(['intranet']);
  });

  it('refuses to store when no keychain can encrypt, and writes nothing', async () => {
    const file = path.join(tmp, 'b', 'credentials.enc.json');
    const vault = new CredentialVault(file, fakeCipher(false));
    await expect(vault.set('nas', { user: 'alice', password: 'pw' })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
    });
    expect(fs.existsSync(file)).toBe(false);
    await expect(vault.set('bad id!', { user: 'a', password: 'b' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('treats a corrupt file or undecryptable entry as absent', async () => {
    const file = path.join(tmp, 'c.json');
    fs.writeFileSync(file, '{not json');
    const vault = new CredentialVault(file, fakeCipher());
    expect(await vault.ids()).toEqual([]);
    fs.writeFileSync(
      file,
      JSON.stringify({ version: 1, entries: { x: Buffer.from('garbage').toString('base64') } }),
    );
    expect(await vault.get('x')).toBe(null);
  });
});
