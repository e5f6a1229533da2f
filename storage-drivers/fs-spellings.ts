/**
 * Names on a data directory that folds them (case-insensitive or normalising, as macOS and Windows disks are
 * by default): there `/alice/Doc` opens the file `/alice/doc`, while everything above the driver (the ACL
 * cache, quota ledgers, locks, the driver's own caches) keys its state by the spelling asked for. So on such a
 * directory every existing name must be asked for as the directory spells it, and a new name must not fold
 * onto an existing one: then one spelling per file reaches any state. The disk itself says what folds (a
 * name that is not in its directory's listing but can be stat'ed is another spelling of an entry), so this
 * holds whatever the file system's folding rules are. See "Names on disks that fold them" in
 * docs/decisions.md. On a case-sensitive directory (Linux) the driver never creates this.
 */
import { randomBytes } from 'node:crypto';
import { readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BoundedCache } from '../src/storage/bounded-cache.ts';
import { ACL_SUFFIX, foldName } from '../src/storage/reserved-names.ts';
import { RESERVED_PREFIX } from '../src/storage/paths.ts';
import { SpelledOtherwiseError } from '../src/storage/types.ts';
import { errorCode, statOf } from './fs-entries.ts';

/** What the checks ask of the directory: the fs driver answers from the disk, tests from a simulated one. */
export interface FoldingDirectory {
  /** The entries of a directory (storage path ending in `/`) as stored; null when there is none. */
  names(directory: string): Promise<readonly string[] | null>;
  /** The inode at a storage path, found as the file system folds names; null when nothing is there. */
  inode(path: string): Promise<bigint | null>;
}

/** How long a directory's spellings are used without reading it again: bounds how long a rename outside svc goes unseen. */
const MAX_AGE_MS = 2000;
/** Names kept in all; a directory with more is read whenever one of its names is checked. */
const MAX_NAMES = 200_000;

interface Spellings {
  names: Set<string>;
  /** The names by their folded form, made when first needed (a name asked for in another spelling). */
  byFold?: Map<string, string[]>;
  loadedAt: number;
}

/** A name of `directory` asked for in another spelling than the one on disk. */
function spelledOtherwise(directory: string, asked: string, onDisk: string | null, why = ''): SpelledOtherwiseError {
  const spelling = onDisk === null ? 'in another spelling' : `as ${JSON.stringify(onDisk)}`;
  return new SpelledOtherwiseError(
    directory,
    `${JSON.stringify(asked)} exists ${spelling}${why} on this server's data directory, which ignores case or normalises names: ask for it as it is spelled there, or choose a name that differs from it in more than case or normalisation.`,
  );
}

export class NameSpellings {
  readonly #directory: FoldingDirectory;
  readonly #spellings = new BoundedCache<string, Spellings>(MAX_NAMES, (entry) => entry.names.size + 1);
  /** Directory reads in flight; one that a write to its directory overlapped (`stale`) is neither kept nor shared. */
  readonly #pending = new Map<string, { stale: boolean; spellings: Promise<Spellings | null> }>();

  constructor(directory: FoldingDirectory) {
    this.#directory = directory;
  }

  /**
   * Throws `SpelledOtherwise` unless every segment of `path` that exists is spelled as its directory spells
   * it. `creating` a resource also holds it and its ACL document (`x`, `x.acl`) to one spelling, so neither
   * is made beside the other spelled otherwise. Returns whether every ancestor container exists: when one
   * does not, a write that makes it should check again afterwards (another request may have made it in
   * another spelling meanwhile).
   */
  async check(path: string, creating = false): Promise<boolean> {
    let directory = '/';
    let start = 1;
    while (start < path.length) {
      const slash = path.indexOf('/', start);
      const end = slash === -1 ? path.length : slash;
      const segment = path.slice(start, end);
      const last = slash === -1 || slash === path.length - 1;
      const found = await this.#find(directory, segment);
      if (found === 'missing') {
        if (creating && last && slash === -1) await this.#checkCompanion(directory, segment);
        return last;
      }
      if (found !== 'spelled') throw spelledOtherwise(directory, segment, found);
      directory += segment + '/';
      start = end + 1;
    }
    return true;
  }

  /**
   * Whether every segment of `path` is spelled as its directory was recently read: the common case, answered
   * without waiting for anything. False means only that `check` must decide.
   */
  knownSpelled(path: string): boolean {
    let start = 1;
    while (start < path.length) {
      const slash = path.indexOf('/', start);
      const end = slash === -1 ? path.length : slash;
      if (!this.#recent(path.slice(0, start))?.names.has(path.slice(start, end))) return false;
      start = end + 1;
    }
    return true;
  }

  /** A write to `path` is about to change or has changed entries of its ancestors: reads in flight are not kept. */
  changed(path: string): void {
    for (let end = path.indexOf('/'); end !== -1; end = path.indexOf('/', end + 1)) {
      const pending = this.#pending.get(path.slice(0, end + 1));
      if (pending) pending.stale = true;
    }
  }

  /** `path` was written (with any containers on the way) as spelled: known spellings take it in, no directory is read again. */
  added(path: string): void {
    this.changed(path);
    let start = 1;
    while (start < path.length) {
      const slash = path.indexOf('/', start);
      const end = slash === -1 ? path.length : slash;
      const directory = path.slice(0, start);
      const spellings = this.#recent(directory);
      if (!spellings) this.#spellings.delete(directory);
      else if (!spellings.names.has(path.slice(start, end))) {
        spellings.names.add(path.slice(start, end));
        spellings.byFold = undefined;
        // Weighed again, so the bound on all names kept holds.
        this.#spellings.set(directory, spellings);
      }
      start = end + 1;
    }
  }

  /** `path` was deleted. */
  removed(path: string): void {
    this.changed(path);
    const container = path.endsWith('/');
    const name = container ? path.slice(0, -1) : path;
    const cut = name.lastIndexOf('/') + 1;
    const spellings = this.#spellings.get(name.slice(0, cut));
    if (spellings) {
      spellings.names.delete(name.slice(cut));
      spellings.byFold = undefined;
    }
    if (container) this.#spellings.delete(path);
  }

  /** Another program changed files under a container. */
  changedUnder(container: string): void {
    this.changed(container);
    this.#spellings.deleteWhere((directory) => directory.startsWith(container));
    for (const [directory, pending] of this.#pending) if (directory.startsWith(container)) pending.stale = true;
  }

  /** The directory's spellings if read recently. */
  #recent(directory: string): Spellings | undefined {
    const cached = this.#spellings.get(directory);
    return cached && performance.now() - cached.loadedAt < MAX_AGE_MS ? cached : undefined;
  }

  /**
   * `'spelled'` (so in its directory), `'missing'` (in no spelling), or the spelling on disk (null: unknown).
   * A name in no spelling costs one stat and no directory read, so making many files in one directory stays cheap.
   */
  async #find(directory: string, segment: string): Promise<'spelled' | 'missing' | string | null> {
    const recent = this.#recent(directory);
    if (recent?.names.has(segment)) return 'spelled';
    const inode = await this.#directory.inode(directory + segment);
    if (inode === null) return 'missing';
    const known = recent ?? (await this.#read(directory, false));
    if (known === null) return 'missing';
    if (known.names.has(segment)) return 'spelled';
    const spelling = await this.#spellingOf(directory, segment, known, inode);
    if (spelling !== null) return spelling;
    // The cached spellings may predate the name (made outside svc): read them again before calling it another spelling.
    const fresh = await this.#read(directory, true);
    if (fresh === null) return 'missing';
    if (fresh.names.has(segment)) return 'spelled';
    return this.#spellingOf(directory, segment, fresh, inode);
  }

  /** The entry of `directory` that is the inode `segment` opened: among the names that fold alike, the one with that inode. */
  async #spellingOf(directory: string, segment: string, spellings: Spellings, inode: bigint): Promise<string | null> {
    if (!spellings.byFold) {
      spellings.byFold = new Map();
      for (const name of spellings.names) {
        const folded = foldName(name);
        const alike = spellings.byFold.get(folded);
        if (alike) alike.push(name);
        else spellings.byFold.set(folded, [name]);
      }
    }
    for (const name of spellings.byFold.get(foldName(segment)) ?? []) {
      const stored = await this.#directory.inode(directory + name);
      if (stored === inode) return name;
      // A write may have renamed a new file over it between the two lookups: asked again, both give the new one.
      if (stored !== null && stored === (await this.#directory.inode(directory + segment))) return name;
    }
    return null;
  }

  /** A new resource `x` beside `X.acl`, or a new `x.acl` beside `X`: the ACL would govern a name the server never asks for. */
  async #checkCompanion(directory: string, segment: string): Promise<void> {
    const isAcl = segment.endsWith(ACL_SUFFIX);
    const companion = isAcl ? segment.slice(0, -ACL_SUFFIX.length) : segment + ACL_SUFFIX;
    if (companion === '') return;
    const found = await this.#find(directory, companion);
    if (found === 'spelled' || found === 'missing') return;
    throw spelledOtherwise(directory, companion, found, isAcl ? `, the resource this ACL document would be for,` : `, the ACL document of this name,`);
  }

  async #read(directory: string, fresh: boolean): Promise<Spellings | null> {
    const pending = this.#pending.get(directory);
    if (pending && !pending.stale && !fresh) return pending.spellings;
    const loadedAt = performance.now();
    const spellings = this.#directory.names(directory).then((list) => (list === null ? null : { names: new Set(list), loadedAt }));
    const read = { stale: false, spellings };
    this.#pending.set(directory, read);
    try {
      const result = await spellings;
      if (result === null) this.#spellings.delete(directory);
      else if (!read.stale) this.#spellings.set(directory, result);
      return result;
    } finally {
      if (this.#pending.get(directory)?.spellings === spellings) this.#pending.delete(directory);
    }
  }
}

/**
 * Whether the directory `root` ignores case or normalises names: a probe file is made under one spelling and
 * looked for under two others (upper case, NFD). A directory that cannot take the probe is taken to fold:
 * the checks are right on any disk and only cost a little where nothing folds.
 */
export async function probeFolding(root: string): Promise<boolean> {
  // `é` precomposed (NFC): its NFD form is `e` and a combining accent.
  const name = `${RESERVED_PREFIX}-fold-${randomBytes(4).toString('hex')}-\u00e9`;
  const file = join(root, name);
  try {
    await writeFile(file, '', { flag: 'wx' });
  } catch {
    return true;
  }
  try {
    for (const other of [name.toUpperCase(), name.normalize('NFD')]) {
      if ((await statOf(join(root, other))) !== null) return true;
    }
    return false;
  } finally {
    await unlink(file).catch(() => undefined);
  }
}

/** The directory under `root` as the disk has it. */
export function diskDirectory(root: string): FoldingDirectory {
  return {
    async names(directory) {
      try {
        return await readdir(join(root, directory));
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw error;
      }
    },
    async inode(path) {
      return (await statOf(join(root, path)))?.ino ?? null;
    },
  };
}

/** A key under which every spelling of a path that such a disk could fold together meets (for locks: folding too far only serializes more). */
export function foldedPath(path: string): string {
  return path.split('/').map(foldName).join('/');
}
