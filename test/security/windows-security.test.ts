/**
 * Windows parsing, on outputs in the exact formats of `whoami /user /groups` (CSV and table) and
 * `icacls <folder>\* /save` (UTF-16LE), since CI has no Windows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canRead } from '../../src/main/core/security/acl-eval.js';
import { parseWhoami, windowsUser } from '../../src/main/core/security/current-user.js';
import { parseIcaclsSave, sddlToDescriptor } from '../../src/main/core/security/windows-acl.js';

const fixture = (name: string): Buffer =>
  fs.readFileSync(path.join(import.meta.dirname, 'fixtures/windows', name));
const ALICE = 'S-1-5-21-3623811015-3361044348-30300820-1013';
const SALES = 'S-1-5-21-1111111111-2222222222-3333333333-1104';

describe('whoami /user /groups', () => {
  const csv = parseWhoami(fixture('whoami-csv.txt').toString('utf8'));

  it('reads the user SID and every group from the CSV form', () => {
    expect(csv.user).toBe('desktop-7k2\\alice');
    expect(csv.sid).toBe(ALICE);
    expect(csv.groups).toHaveLength(15);
    expect(csv.groups.find((g) => g.sid === 'S-1-5-32-544')?.attributes).toBe('Group used for deny only');
  });

  it('reads the table form the same way', () => {
    expect(parseWhoami(fixture('whoami-table.txt').toString('utf8'))).toEqual(csv);
  });

  it('turns the token into principals: enabled groups, deny-only groups, domain aliases; no logon or label SIDs', () => {
    const u = windowsUser(csv);
    expect(u.user).toBe('alice');
    expect(u.id).toBe(ALICE);
    expect(u.principals).toEqual(
      expect.arrayContaining([
        'everyone',
        ALICE,
        'S-1-5-32-545',
        'S-1-5-11',
        SALES,
        'sddl:DU',
        'denyonly:S-1-5-32-544',
      ]),
    );
    expect(u.principals).not.toContain('S-1-5-32-544');
    expect(u.principals.some((p) => p.startsWith('S-1-16-') || p.startsWith('S-1-5-5-'))).toBe(false);
    expect(u.display).toBe('Searching as alice · groups: Users, Domain Users, sales');
  });

  it('rejects output without a user SID', () => {
    expect(() => parseWhoami('"User Name","SID"\r\n')).toThrow(/no user SID/);
  });
});

describe('NTFS DACLs (SDDL) as descriptors', () => {
  const alice = new Set(windowsUser(parseWhoami(fixture('whoami-csv.txt').toString('utf8'))).principals);
  const bob = new Set([
    'everyone',
    'S-1-5-21-3623811015-3361044348-30300820-1014',
    'S-1-5-32-545',
    'S-1-5-11',
  ]);
  const saved = parseIcaclsSave(fixture('icacls-save.txt'));

  it('parses icacls /save output (UTF-16LE name/SDDL pairs)', () => {
    expect([...saved.keys()]).toEqual(['report.docx', 'secret.txt', 'denied.txt', 'write only.txt']);
    expect(saved.get('secret.txt')).toBe(`D:PAI(A;;FA;;;${ALICE})(A;;FA;;;SY)`);
  });

  it('inherited read for Users: both users read', () => {
    const d = sddlToDescriptor(saved.get('report.docx')!);
    expect([canRead(d, alice), canRead(d, bob)]).toEqual([true, true]);
  });

  it('an explicit ACE for alice only: bob does not read', () => {
    const d = sddlToDescriptor(saved.get('secret.txt')!);
    expect([canRead(d, alice), canRead(d, bob)]).toEqual([true, false]);
  });

  it('an explicit deny for a group of alice wins over the inherited allow for Users', () => {
    const d = sddlToDescriptor(saved.get('denied.txt')!);
    expect([canRead(d, alice), canRead(d, bob)]).toEqual([false, true]);
  });

  it('an ACE without read access grants no read', () => {
    expect(canRead(sddlToDescriptor(saved.get('write only.txt')!), alice)).toBe(false);
  });

  it('evaluates ACEs in order, skips inherit-only ones, and treats deny-only groups as deny-only', () => {
    const bobSid = 'S-1-5-21-3623811015-3361044348-30300820-1014';
    const firstMatch = sddlToDescriptor(`D:(A;;FA;;;${bobSid})(D;;FA;;;WD)`);
    expect([canRead(firstMatch, bob), canRead(firstMatch, alice)]).toEqual([true, false]);
    const inheritOnly = sddlToDescriptor(`D:(A;OICIIO;FA;;;${ALICE})(A;;FA;;;SY)`);
    expect(canRead(inheritOnly, alice)).toBe(false);
    const adminsOnly = sddlToDescriptor('D:(A;;FA;;;BA)');
    expect(canRead(adminsOnly, alice)).toBe(false);
    const adminsDenied = sddlToDescriptor('D:(D;;GR;;;BA)(A;;GA;;;WD)');
    expect(canRead(adminsDenied, alice)).toBe(false);
    expect(canRead(adminsDenied, bob)).toBe(true);
    expect(canRead(sddlToDescriptor(`O:BAG:SYD:(A;;0x1;;;${ALICE})`), alice)).toBe(true);
  });

  it('a NULL DACL is everyone, an empty DACL nobody, domain aliases match the token', () => {
    expect(sddlToDescriptor('D:NO_ACCESS_CONTROL')).toBeNull();
    expect(sddlToDescriptor('O:BA')).toBeNull();
    expect(canRead(sddlToDescriptor('D:P'), alice)).toBe(false);
    expect(canRead(sddlToDescriptor('D:(A;;FR;;;DU)'), alice)).toBe(true);
    expect(canRead(sddlToDescriptor('D:(A;;FR;;;DU)'), bob)).toBe(false);
  });

  it('gives equal DACLs that differ only in the order of allows the same descriptor', () => {
    expect(sddlToDescriptor(`D:(A;;FA;;;SY)(A;;FR;;;${ALICE})`)).toEqual(
      sddlToDescriptor(`D:(A;;FR;;;${ALICE})(A;;FA;;;SY)`),
    );
  });
});

/**
 * Traits seen in outputs recorded on real Windows machines (public bug reports): CRLF line ends,
 * `whoami /all` sections after the groups, columns padded with trailing spaces and sized to their
 * content, "Group owner" attributes; icacls /save without BOM, names with spaces, brackets, umlauts
 * and CJK, inherit-only CREATOR OWNER ACEs, hex masks, conditional ACEs and a SACL after the DACL.
 */
describe('outputs with the traits of real machines', () => {
  const bob = new Set([
    'everyone',
    'S-1-5-21-3623811015-3361044348-30300820-1014',
    'S-1-5-32-545',
    'S-1-5-11',
  ]);

  it('reads whoami /all (table, CRLF): user and groups only, not privileges or claims', () => {
    const id = parseWhoami(fixture('whoami-all-crlf.txt').toString('utf8'));
    expect(id.user).toBe('corp\\alice');
    expect(id.sid).toBe(ALICE);
    expect(id.groups.map((g) => g.sid)).toEqual([
      'S-1-1-0',
      'S-1-5-32-544',
      'S-1-5-32-545',
      'S-1-5-4',
      'S-1-5-11',
      'S-1-5-21-1111111111-2222222222-3333333333-513',
      SALES,
      'S-1-18-1',
      'S-1-16-8192',
    ]);
    expect(id.groups.find((g) => g.sid === SALES)?.attributes).toBe(
      'Mandatory group, Enabled by default, Enabled group, Group owner',
    );
    const u = windowsUser(id);
    expect(u.principals).toContain(SALES);
    expect(u.principals).toContain('denyonly:S-1-5-32-544');
    expect(u.principals).not.toContain('S-1-5-32-544');
  });

  it('evaluates a varied icacls /save file for alice and bob', () => {
    const alice = new Set(
      windowsUser(parseWhoami(fixture('whoami-all-crlf.txt').toString('utf8'))).principals,
    );
    const saved = parseIcaclsSave(fixture('icacls-save-variety.txt'));
    const reads = (name: string): [boolean, boolean] => {
      const sddl = saved.get(name);
      expect(sddl, name).toBeDefined();
      const d = sddlToDescriptor(sddl!);
      return [canRead(d, alice), canRead(d, bob)];
    };
    expect([...saved.keys()]).toHaveLength(7);
    expect(reads('Quarterly Report – Q3.xlsx')).toEqual([true, true]); // Authenticated Users, hex mask
    expect(reads('Übersicht 企业搜索.txt')).toEqual([true, false]); // CREATOR OWNER inherit-only skipped
    expect(reads('[draft] .budget.docx')).toEqual([false, false]); // conditional allow grants nothing here
    expect(reads('shared.txt')).toEqual([true, false]); // explicit deny before the allow for Everyone
    expect(reads('sales.txt')).toEqual([true, false]); // group grant; the SACL after it is not read as ACEs
    expect(reads('apps.dll')).toEqual([true, true]); // Users, through 0x1200a9
    expect(sddlToDescriptor(saved.get('no dacl.txt')!)).toBeNull();
  });

  it('never lets a conditional ACE split at the parentheses of its condition', () => {
    const d = sddlToDescriptor(`D:(XA;;FR;;;WD;(@User.x == "a)(A;;FA;;;WD)"))(A;;FA;;;${ALICE})`);
    expect(canRead(d, bob)).toBe(false);
    expect(canRead(d, new Set(['everyone', ALICE]))).toBe(true);
    expect(
      canRead(
        sddlToDescriptor(`D:(XD;;FR;;;${ALICE};(@User.x == 1))(A;;FA;;;WD)`),
        new Set(['everyone', ALICE]),
      ),
    ).toBe(false);
  });
});
