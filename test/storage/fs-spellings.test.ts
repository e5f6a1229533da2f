/**
 * The fs driver on a data directory that folds names: the spelling checks against a simulated folding
 * directory (an in-memory model of one that compares names after NFD and lower-casing, as APFS does), and
 * the whole storage contract against the real FUSE view of test/support/casefold_fs.py and with the checks
 * forced on a case-sensitive directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpelledOtherwiseError } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { NameSpellings, type FoldingDirectory } from '../../storage-drivers/fs-spellings.ts';
import { caseFoldingUnavailable, mountCaseFoldingView, type CaseFoldingView } from '../support/casefold-mount.ts';
import { runStorageContract } from './contract.ts';

/** Entries by directory, each name with its inode; names are looked up as a case-insensitive disk does. */
class SimulatedFoldingDirectory implements FoldingDirectory {
  readonly #entries = new Map<string, Map<string, bigint>>([['/', new Map()]]);
  #nextInode = 1n;
  reads = 0;

  static fold(name: string): string {
    return name.normalize('NFD').toLowerCase();
  }

  /** The directory's key as stored, and the entry `name` is found as there (the stored spelling). */
  #lookup(path: string): { directory: string; stored: string } | null {
    const segments = path.split('/').filter(Boolean);
    let directory = '/';
    for (const [index, segment] of segments.entries()) {
      const entries = this.#entries.get(directory);
      const stored = entries && [...entries.keys()].find((name) => SimulatedFoldingDirectory.fold(name) === SimulatedFoldingDirectory.fold(segment));
      if (stored === undefined) return null;
      if (index === segments.length - 1) return { directory, stored };
      directory += stored + '/';
    }
    return { directory: '/', stored: '' };
  }

  /** Makes `path` (a container if it ends in `/`), keeping the spelling of what exists, as such disks do. */
  add(path: string): void {
    const segments = path.split('/').filter(Boolean);
    let directory = '/';
    for (const [index, segment] of segments.entries()) {
      const entries = this.#entries.get(directory)!;
      let stored = [...entries.keys()].find((name) => SimulatedFoldingDirectory.fold(name) === SimulatedFoldingDirectory.fold(segment));
      if (stored === undefined) entries.set((stored = segment), this.#nextInode++);
      const isDirectory = index < segments.length - 1 || path.endsWith('/');
      if (isDirectory && !this.#entries.has(directory + stored + '/')) this.#entries.set(directory + stored + '/', new Map());
      directory += stored + '/';
    }
  }

  /** Renames an entry to another spelling of itself (as `mv Doc doc` does outside svc). */
  respell(directory: string, from: string, to: string): void {
    const entries = this.#entries.get(directory)!;
    const inode = entries.get(from)!;
    entries.delete(from);
    entries.set(to, inode);
  }

  async names(directory: string): Promise<readonly string[] | null> {
    this.reads++;
    const found = directory === '/' ? { directory: '/', stored: '' } : this.#lookup(directory);
    if (!found) return null;
    const key = directory === '/' ? '/' : found.directory + found.stored + '/';
    const entries = this.#entries.get(key);
    return entries ? [...entries.keys()] : null;
  }

  /** Called after each inode lookup, with its path: a test may change the disk there. */
  afterInode: (path: string) => void = () => {};

  /** A new file renamed over the entry at `path`, in its stored spelling (as every write does): a new inode. */
  replace(path: string): void {
    const found = this.#lookup(path)!;
    this.#entries.get(found.directory)!.set(found.stored, this.#nextInode++);
  }

  async inode(path: string): Promise<bigint | null> {
    const found = this.#lookup(path);
    const inode = found ? this.#entries.get(found.directory)!.get(found.stored)! : null;
    this.afterInode(path);
    return inode;
  }
}

async function refusal(check: Promise<unknown>): Promise<SpelledOtherwiseError> {
  const error = await check.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(SpelledOtherwiseError);
  return error as SpelledOtherwiseError;
}

describe('names on a directory that folds them (simulated)', () => {
  const world = () => {
    const disk = new SimulatedFoldingDirectory();
    for (const path of ['/alice/notes/doc', '/alice/notes/y.acl', '/alice/caf\u00e9/', '/alice/pair/x']) disk.add(path);
    return { disk, spellings: new NameSpellings(disk) };
  };

  it('passes every name spelled as stored, and tells whether the containers on the way exist', async () => {
    const { spellings } = world();
    expect(await spellings.check('/alice/notes/doc')).toBe(true);
    expect(await spellings.check('/alice/notes/')).toBe(true);
    expect(await spellings.check('/alice/notes/new')).toBe(true);
    expect(await spellings.check('/alice/new/deeper/doc')).toBe(false);
    expect(await spellings.check('/')).toBe(true);
  });

  it('refuses another spelling of an existing name in any segment, naming the stored one and its directory', async () => {
    const { spellings } = world();
    const top = await refusal(spellings.check('/ALICE/notes/doc'));
    expect(top.directory).toBe('/');
    expect(top.message).toContain('"ALICE" exists as "alice"');
    const last = await refusal(spellings.check('/alice/notes/Doc'));
    expect(last.directory).toBe('/alice/notes/');
    expect(last.message).toContain('as "doc"');
    // NFD (as macOS hands names out) against the NFC spelling stored.
    expect((await refusal(spellings.check('/alice/cafe\u0301/x'))).message).toContain('as "caf\u00e9"');
    await refusal(spellings.check('/alice/NOTES/'));
  });

  it('names the stored spelling also when a write replaces the file between its lookups', async () => {
    const { disk, spellings } = world();
    disk.afterInode = (path) => {
      if (path === '/alice/notes/Doc') disk.replace('/alice/notes/doc');
    };
    expect((await refusal(spellings.check('/alice/notes/Doc'))).message).toContain('as "doc"');
  });

  it('keeps a resource and its ACL document to one spelling when creating either', async () => {
    const { spellings } = world();
    expect((await refusal(spellings.check('/alice/notes/Y', true))).message).toContain('as "y.acl"');
    expect(await spellings.check('/alice/notes/y', true)).toBe(true);
    expect((await refusal(spellings.check('/alice/pair/X.acl', true))).message).toContain('as "x"');
    expect(await spellings.check('/alice/pair/x.acl', true)).toBe(true);
    // Only creation asks: reading Y (absent in every spelling) is not refused.
    expect(await spellings.check('/alice/notes/Y')).toBe(true);
  });

  it('lets the disk say what folds: names that differ only under a wider folding are two names', async () => {
    const { disk, spellings } = world();
    // NFKC would make ① into 1, and the server's reserved-name rule folds that far; this disk does not.
    disk.add('/alice/\u2460.txt');
    disk.add('/alice/1.txt');
    expect(await spellings.check('/alice/\u2460.txt')).toBe(true);
    expect(await spellings.check('/alice/1.txt')).toBe(true);
  });

  it('reads a directory once for many checks, and not at all for new names made there', async () => {
    const { disk, spellings } = world();
    await spellings.check('/alice/notes/doc');
    const reads = disk.reads;
    for (let i = 0; i < 100; i++) await spellings.check('/alice/notes/doc');
    for (let i = 0; i < 100; i++) {
      expect(await spellings.check(`/alice/notes/new${i}`, true)).toBe(true);
      disk.add(`/alice/notes/new${i}`);
      spellings.added(`/alice/notes/new${i}`);
      expect(spellings.knownSpelled(`/alice/notes/new${i}`)).toBe(true);
    }
    expect(disk.reads).toBe(reads);
    spellings.removed('/alice/notes/new0');
    expect(spellings.knownSpelled('/alice/notes/new0')).toBe(false);
  });

  it('sees names made outside svc when asked for, and respellings outside once told (as after a git push)', async () => {
    const { disk, spellings } = world();
    await spellings.check('/alice/notes/doc');
    disk.add('/alice/notes/Later');
    expect(await spellings.check('/alice/notes/Later')).toBe(true);
    disk.respell('/alice/notes/', 'doc', 'Doc');
    spellings.changedUnder('/alice/notes/');
    expect((await refusal(spellings.check('/alice/notes/doc'))).message).toContain('as "Doc"');
  });
});

describe('the fs driver on a case-sensitive directory', () => {
  const roots: string[] = [];
  afterAll(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));
  const fresh = async (options: { foldsNames?: boolean } = {}) => {
    const root = await mkdtemp(join(tmpdir(), 'svc-spellings-'));
    roots.push(root);
    return FsDriver.open(root, options);
  };

  it('finds by its probe that names do not fold, and leaves no probe file behind', async () => {
    const driver = await fresh();
    expect(driver.foldsNames).toBe(false);
    expect(await driver.usage('/')).toBe(0);
    await driver.put('/a/Doc', 'one', { contentType: 'text/plain' });
    expect((await driver.put('/a/doc', 'two', { contentType: 'text/plain' }))?.created).toBe(true);
  });

  // The checks are right on any disk: forced on where nothing folds, the contract still holds.
  runStorageContract('fs with the spelling checks on a case-sensitive directory', () => fresh({ foldsNames: true }));
});

const unavailable = caseFoldingUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`The case-insensitive disk test cannot run: ${unavailable}. scripts/setup-system.sh installs what it needs.`);

describe.skipIf(unavailable !== null)('the fs driver on a case-insensitive directory (a FUSE view)', () => {
  let view: CaseFoldingView;
  beforeAll(async () => {
    view = await mountCaseFoldingView();
  });
  afterAll(async () => {
    await view?.close();
  });
  const fresh = async () => FsDriver.open(await mkdtemp(join(view.path, 'root-')));

  it('finds by its probe that names fold', async () => {
    expect((await fresh()).foldsNames).toBe(true);
  });

  runStorageContract('fs on a case-insensitive view', fresh);
});
