import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldName, reservedNameProblem } from '../../src/storage/reserved-names.ts';

describe('foldName: names as a file system that ignores case or normalises them compares them', () => {
  it('folds case down, up and down (NTFS upper-cases: ı and ſ meet i and s; ß and ẞ meet ss), width, and NFC and NFD alike', () => {
    expect(foldName('doc.ACL')).toBe('doc.acl');
    expect(foldName('.g\u0131t')).toBe('.git');
    expect(foldName('.\u017fvc-meta')).toBe('.svc-meta');
    expect(foldName('\u212aelvin')).toBe('kelvin');
    expect(foldName('\uff0eacl')).toBe('.acl');
    expect(foldName('caf\u00e9')).toBe(foldName('cafe\u0301'));
    expect(foldName('CAF\u00c9')).toBe(foldName('caf\u00e9'));
    expect(foldName('\u1e9e')).toBe('ss');
    expect(foldName('\u00df')).toBe('ss');
  });

  it('drops what HFS+ ignores (zero-width joiners, direction marks) and what Windows drops (final dots and spaces, a :stream)', () => {
    expect(foldName('.ac\u200cl')).toBe('.acl');
    expect(foldName('.a\u200ecl\ufeff')).toBe('.acl');
    expect(foldName('.acl. . ')).toBe('.acl');
    expect(foldName('.quota.json::$DATA')).toBe('.quota.json');
  });

  it('leaves lowercase ASCII names as they are', () => {
    for (const name of ['doc', '.acl', 'a-b_c~d!$&\'()*+,;=@', 'x.y.z']) expect(foldName(name)).toBe(name);
  });

  it('gives the same fold for a name in upper case, lower case, NFC and NFD', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), (name) => {
        const folded = foldName(name);
        for (const spelling of [name.toUpperCase(), name.toLowerCase(), name.normalize('NFC'), name.normalize('NFD')]) expect(foldName(spelling)).toBe(folded);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('reservedNameProblem', () => {
  const allowed = (name: string, place: 'container' | 'resource' = 'resource') => reservedNameProblem(name, place) === null;

  it('allows the reserved names spelled exactly where they belong, and ordinary names in any case', () => {
    for (const name of ['.acl', 'doc.acl', 'Doc.acl', 'doc.acl.acl', '.quota.json', 'README.md', 'Photos', '.Aclx', 'a:b.acl']) expect(allowed(name), name).toBe(true);
    for (const name of ['.git', '.server', 'Photos', '.well-known']) expect(allowed(name, 'container'), name).toBe(true);
  });

  it('refuses every other spelling of an ACL, the quota record, .git and .server', () => {
    for (const name of ['.ACL', 'doc.Acl', 'doc.acl.', 'doc.acl ', 'doc.acl:x', 'doc.ac\u200cl', 'doc.ACL.acl', '.QUOTA.JSON', '.quota.json.', '.GIT', '.g\u0131t', '.SERVER', '.\u017ferver']) {
      expect(allowed(name), name).toBe(false);
    }
  });

  it('refuses the drivers\' names in any spelling, and ACL and quota record names for containers', () => {
    for (const name of ['x.svc-meta', 'X.SVC-META', 'types.svc-meta', '.svc-tmp-1', '.Svc-Tmp', 'x.\u017fvc-meta', 'x.svc-meta.acl']) expect(allowed(name), name).toBe(false);
    for (const name of ['x.acl', '.acl', 'x.ACL', '.quota.json']) expect(allowed(name, 'container'), name).toBe(false);
  });
});
