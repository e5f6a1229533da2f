import { lstat, mkdir, unlink } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { join, resolve } from 'node:path';
import { KeyedLock } from '../src/storage/keyed-lock.ts';
import { BlockingCalls } from './fs-blocking.ts';
import { errorCode, makeDirectoryTree, makeParents, matchesKind, metaFromStats, removeEmptyDirectory, statOf, statOfSync } from './fs-entries.ts';
import { FileCache } from './fs-file-cache.ts';
import { readFileAt, withBytes } from './fs-read.ts';
import { DEFAULT_CACHE_BYTES, REVALIDATE_AFTER_MS, type FsOptions } from './fs-options.ts';
import { CURRENT_LAYOUT, impliedType, impliedTypeBefore, openLayout } from './fs-layout.ts';
import { recoverDataDirectory } from './fs-recovery.ts';
import type { ListingWrite } from './fs-listing-cache.ts';
import { FsListings } from './fs-listings.ts';
import { sidecarStepFor, typeOfBody, type SidecarRecord } from './fs-sidecar.ts';
import { SidecarFiles } from './fs-sidecar-files.ts';
import { diskDirectory, foldedPath, NameSpellings, probeFolding } from './fs-spellings.ts';
import { SpareFiles } from './fs-spares.ts';
import { linkInPlace, SMALL_BODY, TempFiles } from './fs-temp-files.ts';
import { cacheBudgets } from '../src/storage/cache-budget.ts';
import { nameOf, parentOf } from '../src/storage/paths.ts';
import {
  StorageError,
  type DeleteOptions,
  type PutBody,
  type PutOptions,
  type PutResult,
  type ResourceMeta,
  type StorageDriver,
  type StoredBody,
} from '../src/storage/types.ts';

/** Reads of a small file that changed while being read, before the driver gives up (see get). */
const READ_ATTEMPTS = 5;
const encoder = new TextEncoder();

/**
 * Each resource is a plain file at its path under the root and each container a directory, so backups,
 * `git` and quota reconciliation see real files. A content type the file name cannot imply is kept in a
 * sidecar `<name>.svc-meta` that listings and HTTP never show. Writes go to a temp file in the root and are
 * renamed (replace) or linked (create-only) into place, so readers see the old or the new version, never a
 * torn one.
 */
export class FsDriver implements StorageDriver {
  readonly name = 'fs';
  readonly capabilities = { ranges: true, crossProcessAtomic: false, crossProcessCreateOnly: true };
  private readonly lock = new KeyedLock();
  // Every write through this driver invalidates what it touched; what changes outside it is caught by the
  // validators (see FileCache and ListingCache).
  private readonly cache: FileCache;
  private readonly listings: FsListings;
  private readonly revalidateAfterMs: number;
  private readonly sidecars: SidecarFiles;
  private readonly blocking: BlockingCalls;
  private readonly temps: TempFiles;

  readonly root: string;
  /** Set on a directory that folds names (see FsOptions.foldsNames); null elsewhere, where nothing is checked. */
  private spellings: NameSpellings | null = null;
  uncleanStop = false;
  /** The type a file's name implies, by the directory's layout (fs-layout.ts); a sidecar says any other. */
  private impliedTypeOf: (name: string) => string = impliedType;
  private runningMarker: string | null = null;

  private constructor(root: string, options: FsOptions) {
    this.root = root;
    this.sidecars = new SidecarFiles(root, () => this.temps.path());
    const budgets = cacheBudgets(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.revalidateAfterMs = options.revalidateAfterMs ?? REVALIDATE_AFTER_MS;
    this.cache = new FileCache(this.revalidateAfterMs, budgets);
    this.blocking = new BlockingCalls({ enabled: options.blockingCalls ?? true });
    this.listings = new FsListings(root, this.blocking, { maxBytes: budgets.listings, inPlace: !options.shared, revalidateAfterMs: this.revalidateAfterMs });
    // Old versions kept as spares by the directory's only server (fs-spares.ts): commands beside it would leave
    // theirs, and other servers on a shared directory could read a file between their open and its stat.
    const spares = options.spares ?? (options.recover && !options.shared ? {} : false);
    this.temps = new TempFiles(root, this.blocking, spares === false ? null : new SpareFiles(spares));
  }

  static async open(root: string, options: FsOptions = {}): Promise<FsDriver> {
    const absolute = resolve(root);
    await makeDirectoryTree(absolute);
    const driver = new FsDriver(absolute, options);
    // First: a directory its server may not upgrade here is refused before anything in it changes.
    const layout = await openLayout(absolute, { upgrade: options.recover ?? false, shared: options.shared ?? false, sidecars: driver.sidecars, tempPath: () => driver.temps.path(), ...(options.log && { log: options.log }) });
    if (layout < CURRENT_LAYOUT) driver.impliedTypeOf = impliedTypeBefore;
    if (options.recover) {
      const recovered = await recoverDataDirectory(absolute, options.shared ?? false);
      driver.uncleanStop = recovered.uncleanStop;
      // Shared: the marker stays after a clean stop, so a later start without the others recounts to be safe.
      driver.runningMarker = options.shared ? null : recovered.marker;
    }
    if (options.foldsNames ?? (await probeFolding(absolute))) driver.spellings = new NameSpellings(diskDirectory(absolute));
    return driver;
  }

  /** Whether the directory ignores case or normalises names, so names are held to the spelling on disk. */
  get foldsNames(): boolean {
    return this.spellings !== null;
  }

  get recountsAfterUncleanStop(): boolean {
    return this.runningMarker !== null;
  }

  /** A clean stop: the next start needs no recount. */
  async close(): Promise<void> {
    await this.temps.close();
    if (this.runningMarker) await unlink(this.runningMarker).catch(() => undefined);
    this.runningMarker = null;
  }

  private fsPath(path: string): string {
    return join(this.root, path);
  }

  /** Writes to one file take turns; where names fold, so do two spellings of one new name (one file there). */
  private lockKey(path: string, target: string): string {
    return this.spellings ? foldedPath(path) : target;
  }

  private stat(path: string): Promise<BigIntStats | null> {
    return statOf(this.fsPath(path));
  }

  private statSync(path: string): BigIntStats | null {
    return statOfSync(this.fsPath(path));
  }

  /** A blocking stat while the disk answers quickly (fs-blocking.ts), else through the thread pool. */
  private statNow(path: string): BigIntStats | null | Promise<BigIntStats | null> {
    return this.blocking.allowed ? this.blocking.run(() => this.statSync(path)) : this.stat(path);
  }

  private async sidecarOf(path: string): Promise<SidecarRecord | null> {
    const cached = this.cache.sidecar(path);
    if (cached !== undefined) return cached;
    const writes = this.cache.writes;
    const sidecar = await this.sidecars.read(path);
    this.cache.rememberSidecar(path, sidecar, writes);
    return sidecar;
  }

  /** The metadata of a file with its content type: the sidecar's word for this very body, else the name's. */
  private async fileMeta(path: string, stats: BigIntStats): Promise<ResourceMeta> {
    const meta = metaFromStats(path, stats);
    meta.contentType = typeOfBody(await this.sidecarOf(path), this.impliedTypeOf(nameOf(path)), meta.etag);
    return meta;
  }

  /** Forgets what a write to `path` changes (body, type, ancestors' listings): before it, and after it, failed or not. */
  private changed(path: string): void {
    this.cache.changed(path);
    this.listings.invalidate(path);
    this.spellings?.changed(path);
  }

  /** `changed` before a write to the file at `path`, but a current listing of its container is kept to update in place (FsListings). */
  private fileChanging(path: string): ListingWrite | undefined {
    if (this.spellings) return void this.changed(path);
    this.cache.changed(path);
    return this.listings.writeStarting(path);
  }

  /** `changed` once that write is on disk, with the file as it left it (null: removed) for the listing; without it, the listing is stale. */
  private fileChanged(path: string, write: ListingWrite | undefined, member?: ResourceMeta | null): void {
    if (!write) return this.changed(path);
    this.cache.changed(path);
    this.listings.writeDone(path, write, member);
  }

  forgetCached(container: string): void {
    this.cache.changedUnder(container);
    this.listings.invalidateUnder(container);
    this.spellings?.changedUnder(container);
  }

  async head(path: string): Promise<ResourceMeta | null> {
    if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
    const fresh = path.endsWith('/') ? this.listings.recentMeta(path) : this.cache.fresh(path)?.meta;
    if (fresh) return fresh;
    const writes = this.cache.writes;
    const stats = await this.statNow(path);
    if (!matchesKind(path, stats)) return null;
    if (!stats.isFile()) return metaFromStats(path, stats);
    const meta = await this.fileMeta(path, stats);
    this.cache.remember(path, meta, undefined, writes);
    return meta;
  }

  held(path: string): StoredBody | undefined {
    return (this.spellings && !this.spellings.knownSpelled(path)) || path.endsWith('/') ? undefined : this.cache.freshBody(path);
  }

  async get(path: string, options?: { range?: { start: number; end?: number } }, attempt = 1): Promise<StoredBody | null> {
    const held = options?.range ? undefined : this.held(path);
    if (held) return held;
    if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
    if (path.endsWith('/')) {
      const meta = await this.head(path);
      return meta ? { meta, body: new ReadableStream({ start: (c) => c.close() }) } : null;
    }
    if (!options?.range) {
      const cached = this.cache.known(path);
      if (cached?.bytes) {
        const writes = this.cache.writes;
        const stats = await this.stat(path);
        if (!matchesKind(path, stats)) return null;
        const meta = await this.fileMeta(path, stats);
        if (meta.etag === cached.meta.etag) {
          this.cache.remember(path, meta, cached.bytes, writes);
          return withBytes(meta, cached.bytes);
        }
      }
    }
    const writes = this.cache.writes;
    const read = await readFileAt(this.fsPath(path), this.blocking, options?.range);
    if (read === null) return null;
    if (read === 'changed') return this.readAgain(path, options, attempt);
    const meta = await this.fileMeta(path, read.stats);
    if ('bytes' in read) return this.cache.smallBody(path, meta, read.bytes, options?.range, writes);
    return { meta, body: read.body, ...(read.range && { range: read.range }) };
  }

  /** A small file that changed while it was read (a spare written into again, see fs-spares.ts): read again. */
  private readAgain(path: string, options: { range?: { start: number; end?: number } } | undefined, attempt: number): Promise<StoredBody | null> {
    if (attempt >= READ_ATTEMPTS) throw new StorageError('Conflict', `${path} kept changing while it was read`);
    return this.get(path, options, attempt + 1);
  }

  async put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null> {
    const target = this.fsPath(path);
    if (options.ifMatch !== undefined && !(await this.head(path))) return null;
    // The temp file goes in the root, so a body refused part-way (413, aborted) leaves no new containers.
    // Rename and link keep the inode and mtime, so the temp file's stats are the new version's.
    // A small body given whole is kept as the cached body of a file's new version: the next read (a PATCH's) opens no file.
    const bytes = typeof body === 'string' ? encoder.encode(body) : body instanceof Uint8Array ? body.slice() : undefined;
    const small = bytes !== undefined && bytes.byteLength <= SMALL_BODY && this.blocking.allowed;
    const write = small ? await this.temps.writeSmall(bytes) : await this.temps.writeLarge(bytes ?? body);
    const { temp, written } = write;
    let renamed = false;
    // null until the write begins changing things (see fileChanging).
    let listingWrite: ListingWrite | undefined | null = null;
    let listed = false;
    try {
      return await this.lock.run(this.lockKey(path, target), async () => {
        const ancestorsExisted = this.spellings ? await this.spellings.check(path, true) : true;
        const knownSidecar = this.cache.sidecar(path);
        listingWrite = this.fileChanging(path);
        const before = small ? this.blocking.run(() => this.statSync(path)) : await this.stat(path);
        if (before?.isDirectory()) throw new StorageError('Conflict', `a container exists at ${path}/`);
        if (options.ifNoneMatch === '*' && before) return null;
        const beforeEtag = before ? metaFromStats(path, before).etag : undefined;
        if (options.ifMatch !== undefined && (!before?.isFile() || beforeEtag !== options.ifMatch)) return null;
        // A file in place proves its container exists: only a new one may need containers made.
        const createdContainers = before ? [] : await this.makeParents(path);
        // Another request may have made a missing container meanwhile, spelled otherwise.
        if (!ancestorsExisted) await this.spellings!.check(path);
        const impliedType = this.impliedTypeOf(nameOf(path));
        // A cached sidecar speaks for the disk only while the file it belongs to is still there.
        const current = before ? { etag: beforeEtag!, sidecar: knownSidecar !== undefined ? knownSidecar : await this.sidecars.read(path) } : null;
        const step = sidecarStepFor(impliedType, options.contentType, current);
        // The sidecar first: it gives the old body its type until the new one lands (see fs-sidecar.ts).
        // A free name's leftover sidecar in a blocking call; an existing resource's through the thread pool.
        if (step.action === 'remove' && small && !before && this.blocking.allowed) this.blocking.run(() => this.sidecars.removeSync(path));
        else await this.sidecars.apply(path, step);
        if (options.ifNoneMatch === '*') {
          try {
            // A new name for a file that keeps its other until the finally below: nothing freed or written out.
            await linkInPlace(temp, target, small, this.blocking);
          } catch (error) {
            if (errorCode(error) === 'EEXIST') return null;
            throw error;
          }
        } else {
          // A large body's old version is never kept as a spare.
          await this.temps.replace(write, target, small ? before : null);
          renamed = true;
        }
        const sidecar = await this.sidecars.settle(path, step, current?.sidecar ?? null, options.contentType === impliedType);
        // The member a scan would find now (no content type: listings have none).
        const member = metaFromStats(path, written);
        this.fileChanged(path, listingWrite, member);
        listed = true;
        this.spellings?.added(path);
        const meta = { ...member, contentType: options.contentType };
        // A new version of a file is known exactly: the next read or precondition check (a PATCH's) needs no
        // lstat and opens no file. A new file is left out (written around the caches): a bulk import or a
        // stream of POSTs would otherwise push out what is being read, for files nobody may read again.
        if (before) {
          this.cache.rememberSidecar(path, sidecar);
          this.cache.remember(path, meta, bytes && bytes.byteLength <= SMALL_BODY ? bytes : undefined, this.cache.writes);
        }
        return {
          meta,
          created: !before,
          createdContainers,
          previousSize: before ? Number(before.size) : 0,
        };
      });
    } finally {
      // Refused or failed part-way, perhaps after making containers another write's update saw: scanned again.
      if (listingWrite !== null && !listed) this.fileChanged(path, listingWrite);
      if (!renamed) await this.temps.remove(temp, small);
    }
  }

  /** The containers a new file needs made; none when its parent is there, which a blocking lstat tells. */
  private async makeParents(path: string): Promise<string[]> {
    if (this.blocking.allowed && this.blocking.run(() => this.statSync(parentOf(path)!))?.isDirectory()) return [];
    return makeParents(this.root, path);
  }

  async createContainer(path: string): Promise<PutResult | null> {
    const ancestorsExisted = this.spellings ? await this.spellings.check(path) : true;
    this.changed(path);
    try {
      const createdContainers = await makeParents(this.root, path);
      if (!ancestorsExisted) await this.spellings!.check(path);
      try {
        await mkdir(this.fsPath(path));
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
        // Made meanwhile, perhaps in another spelling.
        if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
        const stats = await this.stat(path);
        if (stats?.isDirectory()) return null;
        throw new StorageError('Conflict', `a resource exists at ${path.slice(0, -1)}`);
      }
      const stats = await lstat(this.fsPath(path), { bigint: true });
      this.spellings?.added(path);
      return { meta: metaFromStats(path, stats), created: true, createdContainers, previousSize: 0 };
    } finally {
      this.changed(path);
    }
  }

  async delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null> {
    if (path === '/') throw new StorageError('Conflict', 'the root cannot be deleted');
    if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
    const target = this.fsPath(path);
    return this.lock.run(this.lockKey(path, target), async () => {
      const stats = await this.stat(path);
      if (!matchesKind(path, stats)) return null;
      const meta = metaFromStats(path, stats);
      if (options?.ifMatch !== undefined && meta.etag !== options.ifMatch) return null;
      if (meta.isContainer) {
        this.changed(path);
        await removeEmptyDirectory(this.root, path);
        this.changed(path);
      } else {
        const knownSidecar = this.cache.sidecar(path);
        const listingWrite = this.fileChanging(path);
        let removed = false;
        try {
          const sidecar = knownSidecar !== undefined ? knownSidecar : await this.sidecars.read(path).catch(() => null);
          await unlink(target);
          await this.sidecars.drop(path, sidecar);
          removed = true;
        } finally {
          this.fileChanged(path, listingWrite, removed ? null : undefined);
        }
      }
      this.spellings?.removed(path);
      return meta;
    });
  }

  /** A file another program wrote (a git push) has `contentType`, whatever its name implies: a sidecar says so where needed. */
  async keepType(path: string, contentType: string): Promise<void> {
    const target = this.fsPath(path);
    await this.lock.run(this.lockKey(path, target), async () => {
      if (!(await this.stat(path))?.isFile()) return;
      const sidecar = await this.sidecars.read(path).catch(() => null);
      const named = this.impliedTypeOf(nameOf(path)) === contentType;
      const right = sidecar === null ? named : !named && !sidecar.previous && sidecar.contentType === contentType;
      if (right) return;
      this.changed(path);
      if (named) await this.sidecars.remove(path);
      else await this.sidecars.apply(path, { action: 'write', record: { contentType } });
      if (sidecar) await this.sidecars.release(sidecar);
      this.changed(path);
    });
  }

  async *list(container: string): AsyncIterable<ResourceMeta> {
    yield* await this.children(container);
  }

  /** A container's members, reused while the directory is unchanged (see ListingCache). */
  async children(container: string): Promise<readonly ResourceMeta[]> {
    if (this.spellings && !this.spellings.knownSpelled(container)) await this.spellings.check(container);
    return this.listings.children(container);
  }

  usage(prefix: string): Promise<number> {
    return this.listings.usage(prefix, (container) => this.children(container));
  }
}
