import { BoundedCache } from '../src/storage/bounded-cache.ts';
import { stringBytes } from '../src/storage/cache-budget.ts';
import { ancestorsOf, isReservedName, nameOf, parentOf } from '../src/storage/paths.ts';
import type { ResourceMeta } from '../src/storage/types.ts';

/** How long a listing is reused before a scan looks again: bounds how stale it gets after files change outside svc. */
const MAX_AGE_MS = 2000;
/**
 * What a member keeps alive besides its path and ETag: the ResourceMeta and its date, the array's slot, the
 * path's cons string (container + name) over its flat copy. Measured with `npm run bench:cache-weights`.
 */
const MEMBER_BYTES = 120;

/** What identifies one state of a directory: a new entry, removal or rename changes its mtime. */
export interface DirectoryVersion {
  ino: bigint;
  mtimeNs: bigint;
  /** The container's own metadata at this version. */
  meta: ResourceMeta;
}

/** Reads the members from the disk; `previous`, an earlier scan, lends the objects of members unchanged since. */
export type Scan = (previous?: readonly ResourceMeta[]) => Promise<ResourceMeta[]>;

interface CachedListing extends DirectoryVersion {
  /** What it keeps alive (see bytesOf), counted once per scan and changed by each update in place. */
  bytes: number;
  loadedAt: number;
  /** When the directory was last seen at this version. */
  checkedAt: number;
  members: readonly ResourceMeta[];
  /** Changed by a write through svc: never served again, only the next scan's starting point (its unchanged members are reused). */
  stale?: true;
}

/** A write through svc to one file, begun while its container's listing was current: that listing is updated in place when it is done. */
export interface ListingWrite {
  container: string;
  listing: CachedListing;
}

/** Lstats a container's directory now: its version, or null when it is not a directory. */
export type VersionOf = (container: string) => DirectoryVersion | null;

/**
 * Container listings of the fs driver, reused while the directory is unchanged. Writes through the driver
 * invalidate at once; changes made outside svc are caught by the directory's mtime, or (a file edited in
 * place, which leaves the directory alone) by a scan once the listing is `maxAgeMs` old, which runs while the
 * aged listing still answers (so a request never waits for a scan of an unchanged directory). Concurrent reads
 * of one container share one directory scan, unless a write happened since it began.
 */
export class ListingCache {
  readonly #listings: BoundedCache<string, CachedListing>;
  readonly #pending = new Map<string, { writes: number; members: Promise<ResourceMeta[]> }>();
  /** Counts writes, so a listing read while one happened is neither cached nor shared. */
  #writes = 0;
  readonly #maxAgeMs: number;

  /** `maxBytes`: what the cached members may take in all (see MEMBER_BYTES). */
  constructor(maxBytes: number, maxAgeMs = MAX_AGE_MS) {
    this.#listings = new BoundedCache(maxBytes, (entry) => entry.bytes);
    this.#maxAgeMs = maxAgeMs;
  }

  /** A write to `path` changes the listings of its ancestors (and its own, for a container). */
  invalidate(path: string): void {
    this.#writes++;
    for (const ancestor of ancestorsOf(path)) this.#markStale(ancestor);
    this.#markStale(path);
  }

  #markStale(container: string): void {
    const cached = this.#listings.peek(container);
    if (cached) cached.stale = true;
  }

  /**
   * Before a write through svc to the file at `path`: what `invalidate` does, except that a current listing of
   * its container (cached, not stale, no scan of it under way, its directory still at the cached version, so
   * nothing changed it outside svc since) is kept and still served; `writeDone` then puts the file into it.
   */
  writeStarting(path: string, versionOf: VersionOf): ListingWrite | undefined {
    const container = parentOf(path);
    this.#changingAbove(path, container);
    if (container === null) return undefined;
    const cached = this.#listings.peek(container);
    if (!cached || cached.stale || this.#pending.has(container) || path.endsWith('/') || isReservedName(nameOf(path))) {
      this.#markStale(container);
      return undefined;
    }
    const version = versionOf(container);
    if (version?.ino !== cached.ino || version.mtimeNs !== cached.mtimeNs) {
      cached.stale = true;
      return undefined;
    }
    return { container, listing: cached };
  }

  /**
   * After that write, `member` (the file as the write left it; null: removed) replaces, joins or leaves the
   * members, in a new array (one handed out is never changed), with the directory's version as `versionOf`
   * sees it now. The listing keeps its `loadedAt`, so the aged scan still looks at the members when it would
   * have. Without `member`, or when it is not clearly right (a scan began, the listing was replaced, by another
   * write's update or a scan, or marked stale meanwhile), the listing is marked stale as by `invalidate`.
   */
  writeDone(path: string, write: ListingWrite | undefined, done?: { member: ResourceMeta | null; versionOf: VersionOf }): void {
    const container = parentOf(path);
    this.#changingAbove(path, container);
    if (container === null) return;
    if (!write) return this.#markStale(container);
    const { listing } = write;
    // Writes that overlap begin with the same listing: the first one done replaces it, so the others mark it stale.
    const current = !listing.stale && this.#listings.peek(container) === listing && !this.#pending.has(container);
    const version = current && done ? done.versionOf(container) : null;
    if (!version) return this.#markStale(container);
    const { members, bytes } = withMember(listing, path, done!.member);
    this.#listings.set(container, { ino: version.ino, mtimeNs: version.mtimeNs, meta: version.meta, bytes, loadedAt: listing.loadedAt, checkedAt: performance.now(), members });
  }

  /** A write to `path` is starting or done: the listings above its container are stale (an ancestor's member changed). */
  #changingAbove(path: string, container: string | null): void {
    this.#writes++;
    for (const ancestor of ancestorsOf(path)) if (ancestor !== container) this.#markStale(ancestor);
  }

  /** Forgets the listings of a container, of everything under it and of its ancestors. */
  invalidateUnder(container: string): void {
    this.invalidate(container);
    this.#listings.deleteWhere((path) => path.startsWith(container));
  }

  /**
   * The members, without a look at the directory, when it was seen at their version less than `withinMs` ago
   * (as the file cache serves a body: changes made outside svc show within that time; writes through svc at once).
   */
  recent(container: string, withinMs: number, scan: Scan): readonly ResourceMeta[] | undefined {
    const cached = this.#listings.get(container);
    if (!cached || cached.stale || performance.now() - cached.checkedAt >= withinMs) return undefined;
    this.#scanIfAged(container, cached, scan);
    return cached.members;
  }

  /** The container's own metadata, when its directory was seen less than `withinMs` ago (as `recent`): a GET of it needs no lstat. */
  recentMeta(container: string, withinMs: number): ResourceMeta | undefined {
    const cached = this.#listings.peek(container);
    return cached && !cached.stale && performance.now() - cached.checkedAt < withinMs ? cached.meta : undefined;
  }

  async members(container: string, version: DirectoryVersion, scan: Scan): Promise<readonly ResourceMeta[]> {
    const cached = this.#listings.get(container);
    if (cached && !cached.stale && cached.ino === version.ino && cached.mtimeNs === version.mtimeNs) {
      cached.checkedAt = performance.now();
      this.#scanIfAged(container, cached, scan);
      return cached.members;
    }
    return this.#scan(container, version, scan, cached);
  }

  /** An aged listing (no entry of the directory changed) still answers, while one scan looks at the members again. */
  #scanIfAged(container: string, cached: CachedListing, scan: Scan): void {
    if (performance.now() - cached.loadedAt >= this.#maxAgeMs) this.#scan(container, cached, scan, cached).catch(() => undefined);
  }

  /** One scan of a container at a time (unless a write came since it began); what it finds is cached if no write came meanwhile. */
  async #scan(container: string, version: DirectoryVersion, scan: Scan, cached: CachedListing | undefined): Promise<readonly ResourceMeta[]> {
    const pending = this.#pending.get(container);
    if (pending && pending.writes === this.#writes) return pending.members;
    const writes = this.#writes;
    const loadedAt = performance.now();
    const members = scan(cached?.members).then(sortByPath);
    this.#pending.set(container, { writes, members });
    try {
      let read: readonly ResourceMeta[] = await members;
      // An aged listing scanned again unchanged stays the same array, so what was made from it (bodies) still serves.
      if (cached && sameMembers(cached.members, read)) read = cached.members;
      if (this.#writes === writes) this.#listings.set(container, { ino: version.ino, mtimeNs: version.mtimeNs, meta: version.meta, bytes: bytesOf(container, read), loadedAt, checkedAt: loadedAt, members: read });
      return read;
    } finally {
      if (this.#pending.get(container)?.members === members) this.#pending.delete(container);
    }
  }
}

/** A scan's members in the order of their paths (as a listing shows them), so a write puts its member in the same place. */
function sortByPath(members: ResourceMeta[]): ResourceMeta[] {
  return members.sort((a, b) => comparePaths(a.path, b.path));
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where `path` is in `members` (sorted by path), or where it would go: the index and whether it is there. */
function placeOf(members: readonly ResourceMeta[], path: string): { index: number; found: boolean } {
  let low = 0;
  let high = members.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = comparePaths(members[middle]!.path, path);
    if (order === 0) return { index: middle, found: true };
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return { index: low, found: false };
}

/** A new array of the listing's members with `member` at `path` (null: without it; the same array when it was not there), and its bytes. */
function withMember(listing: CachedListing, path: string, member: ResourceMeta | null): { members: readonly ResourceMeta[]; bytes: number } {
  const { members } = listing;
  const { index, found } = placeOf(members, path);
  const bytes = listing.bytes - (found ? memberBytes(members[index]!) : 0) + (member ? memberBytes(member) : 0);
  if (member === null) return { members: found ? members.toSpliced(index, 1) : members, bytes };
  return { members: members.toSpliced(index, found ? 1 : 0, member), bytes };
}

function bytesOf(container: string, members: readonly ResourceMeta[]): number {
  let bytes = stringBytes(container) + MEMBER_BYTES;
  for (const member of members) bytes += memberBytes(member);
  return bytes;
}

function memberBytes(member: ResourceMeta): number {
  return stringBytes(member.path) + stringBytes(member.etag) + MEMBER_BYTES;
}

/** Whether two scans found the same members in the same order, each at the same version. */
function sameMembers(a: readonly ResourceMeta[], b: readonly ResourceMeta[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.path !== b[i]!.path || a[i]!.etag !== b[i]!.etag || a[i]!.size !== b[i]!.size) return false;
  return true;
}
