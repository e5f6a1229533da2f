import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { fstatSync, linkSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { bytesToStream } from '../src/storage/body.ts';
import { KeyedLock } from '../src/storage/keyed-lock.ts';
import { BlockingCalls } from './fs-blocking.ts';
import { errorCode, makeDirectoryTree, makeParents, matchesKind, metaFromStats, readMembers, readSmallSync, removeEmptyDirectory, statOf, statOfSync } from './fs-entries.ts';
import { FileCache } from './fs-file-cache.ts';
import { DEFAULT_CACHE_BYTES, REVALIDATE_AFTER_MS, type FsOptions } from './fs-options.ts';
import { CURRENT_LAYOUT, impliedType, impliedTypeBefore, openLayout } from './fs-layout.ts';
import { recoverDataDirectory } from './fs-recovery.ts';
import { ListingCache } from './fs-listing-cache.ts';
import { sidecarStepFor, typeOfBody, type SidecarRecord } from './fs-sidecar.ts';
import { SidecarFiles } from './fs-sidecar-files.ts';
import { diskDirectory, foldedPath, NameSpellings, probeFolding } from './fs-spellings.ts';
import { SpareFiles } from './fs-spares.ts';
import { writeSmallIntoSpare, writeSmallTempFile, writeTempFile } from './fs-write.ts';
import { cacheBudgets } from '../src/storage/cache-budget.ts';
import { nameOf, parentOf, RESERVED_PREFIX } from '../src/storage/paths.ts';
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

/** Bodies up to this size are read whole and kept in memory (validated by ETag) for the next read. */
const SMALL_BODY = 64 * 1024;
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
  private readonly listings: ListingCache;
  private readonly revalidateAfterMs: number;
  private readonly sidecars: SidecarFiles;
  private readonly blocking: BlockingCalls;
  /** Old versions of small files, to be written into by later small writes (fs-spares.ts). */
  private readonly spares: SpareFiles | null;
  /** Temp names: this driver's random prefix, then a count. */
  private readonly tempPrefix = randomBytes(4).toString('hex');
  private tempCount = 0;

  readonly root: string;
  /** Set on a directory that folds names (see FsOptions.foldsNames); null elsewhere, where nothing is checked. */
  private spellings: NameSpellings | null = null;
  uncleanStop = false;
  /** The type a file's name implies, by the directory's layout (fs-layout.ts); a sidecar says any other. */
  private impliedTypeOf: (name: string) => string = impliedType;
  private runningMarker: string | null = null;

  private constructor(root: string, options: FsOptions) {
    this.root = root;
    this.sidecars = new SidecarFiles(root, () => this.tempPath());
    const budgets = cacheBudgets(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.revalidateAfterMs = options.revalidateAfterMs ?? REVALIDATE_AFTER_MS;
    this.cache = new FileCache(this.revalidateAfterMs, budgets);
    this.listings = new ListingCache(budgets.listings);
    this.blocking = new BlockingCalls({ enabled: options.blockingCalls ?? true });
    const spares = options.spares ?? (options.recover ? {} : false);
    this.spares = spares === false ? null : new SpareFiles(spares);
  }

  static async open(root: string, options: FsOptions = {}): Promise<FsDriver> {
    const absolute = resolve(root);
    await makeDirectoryTree(absolute);
    const driver = new FsDriver(absolute, options);
    // First: a directory its server may not upgrade here is refused before anything in it changes.
    const layout = await openLayout(absolute, { upgrade: options.recover ?? false, shared: options.shared ?? false, sidecars: driver.sidecars, tempPath: () => driver.tempPath(), ...(options.log && { log: options.log }) });
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
    await Promise.all((this.spares?.drain() ?? []).map((spare) => unlink(spare).catch(() => undefined)));
    if (this.runningMarker) await unlink(this.runningMarker).catch(() => undefined);
    this.runningMarker = null;
  }

  private fsPath(path: string): string {
    return join(this.root, path);
  }

  /** Temp files all go in the root: short names, and one place to sweep after a crash. */
  private tempPath(): string {
    return join(this.root, `${RESERVED_PREFIX}-${this.tempPrefix}${(this.tempCount++).toString(36)}`);
  }

  /** A spare's name (fs-spares.ts): a temp name, told apart for those who look at the data directory. */
  private sparePath(): string {
    return join(this.root, `${RESERVED_PREFIX}-spare-${this.tempPrefix}${(this.tempCount++).toString(36)}`);
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

  /**
   * Forgets what a write to `path` changes: its body, its type, and the listings of its ancestors. Called
   * before the write and again once it is on disk, so nothing read while it ran is kept.
   */
  private changed(path: string): void {
    this.cache.changed(path);
    this.listings.invalidate(path);
    this.spellings?.changed(path);
  }

  forgetCached(container: string): void {
    this.cache.changedUnder(container);
    this.listings.invalidateUnder(container);
    this.spellings?.changedUnder(container);
  }

  async head(path: string): Promise<ResourceMeta | null> {
    if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
    const fresh = path.endsWith('/') ? this.listings.recentMeta(path, this.revalidateAfterMs) : this.cache.fresh(path)?.meta;
    if (fresh) return fresh;
    const writes = this.cache.writes;
    const stats = await this.statNow(path);
    if (!matchesKind(path, stats)) return null;
    if (!stats.isFile()) return metaFromStats(path, stats);
    const meta = await this.fileMeta(path, stats);
    this.cache.remember(path, meta, undefined, writes);
    return meta;
  }

  async get(path: string, options?: { range?: { start: number; end?: number } }, attempt = 1): Promise<StoredBody | null> {
    if (this.spellings && !this.spellings.knownSpelled(path)) await this.spellings.check(path);
    if (path.endsWith('/')) {
      const meta = await this.head(path);
      return meta ? { meta, body: new ReadableStream({ start: (c) => c.close() }) } : null;
    }
    if (!options?.range) {
      const fresh = this.cache.fresh(path);
      if (fresh?.bytes) return withBytes(fresh.meta, fresh.bytes);
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
    if (this.blocking.allowed) {
      const read = this.blocking.run(() => readSmallSync(this.fsPath(path), SMALL_BODY));
      if (read === null) return null;
      if (read === 'changed') return this.readAgain(path, options, attempt);
      if (read !== 'large') {
        const meta = await this.fileMeta(path, read.stats);
        return this.smallBody(path, meta, read.bytes, options?.range, writes);
      }
    }
    let handle;
    try {
      handle = await open(this.fsPath(path), 'r');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
      throw error;
    }
    try {
      const stats = await handle.stat({ bigint: true });
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      const meta = await this.fileMeta(path, stats);
      if (meta.size <= SMALL_BODY) {
        const bytes = new Uint8Array(await handle.readFile());
        // A small file may be a spare written into again once replaced (fs-spares.ts): what was read is this
        // version only if the file did not change meanwhile.
        const after = this.blocking.allowed ? this.blocking.run(() => fstatSync(handle.fd, { bigint: true })) : await handle.stat({ bigint: true });
        await handle.close();
        if (after.mtimeNs !== stats.mtimeNs || after.size !== stats.size) return this.readAgain(path, options, attempt);
        return this.smallBody(path, meta, bytes, options?.range, writes);
      }
      let range: { start: number; end: number } | undefined;
      if (options?.range) range = { start: options.range.start, end: Math.min(options.range.end ?? meta.size - 1, meta.size - 1) };
      const nodeStream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return { meta, body: Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>, range };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** A small file read whole: kept as the cached body, or the range asked for cut from it. */
  private smallBody(path: string, meta: ResourceMeta, bytes: Uint8Array, range: { start: number; end?: number } | undefined, writes: number): StoredBody {
    if (!range) {
      if (bytes.byteLength === meta.size) this.cache.remember(path, meta, bytes, writes);
      return withBytes(meta, bytes);
    }
    const end = Math.min(range.end ?? meta.size - 1, meta.size - 1);
    return { meta, body: bytesToStream(bytes.subarray(range.start, end + 1)), range: { start: range.start, end } };
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
    // A small body given whole is kept as the cached body of the new version: the next read (a PATCH's) opens no file.
    const bytes = typeof body === 'string' ? encoder.encode(body) : body instanceof Uint8Array ? body.slice() : undefined;
    const small = bytes !== undefined && bytes.byteLength <= SMALL_BODY && this.blocking.allowed;
    const { temp, written, quick } = small ? await this.writeSmall(bytes) : await this.writeLarge(bytes ?? body);
    let renamed = false;
    try {
      return await this.lock.run(this.lockKey(path, target), async () => {
        const ancestorsExisted = this.spellings ? await this.spellings.check(path, true) : true;
        const knownSidecar = this.cache.sidecar(path);
        this.changed(path);
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
        if (step.action === 'remove' && small && this.blocking.allowed) this.blocking.run(() => this.sidecars.removeSync(path));
        else await this.sidecars.apply(path, step);
        if (options.ifNoneMatch === '*') {
          try {
            // A new name for a file that keeps its other until the finally below: nothing freed or written out.
            if (small && this.blocking.allowed) this.blocking.run(() => linkSync(temp, target));
            else await link(temp, target);
          } catch (error) {
            if (errorCode(error) === 'EEXIST') return null;
            throw error;
          }
        } else {
          // The old version becomes a spare unless something else holds it (another name, a large body).
          const spare = small && before?.isFile() && before.nlink === 1n && before.size <= SMALL_BODY && this.spares?.hasRoom ? await this.linkSpare(target, quick) : null;
          try {
            // Neither an inode freed nor blocks to write out: a rename as quick as a stat (fs-spares.ts).
            if (quick && spare && this.blocking.allowed) this.blocking.run(() => renameSync(temp, target));
            else await rename(temp, target);
          } catch (error) {
            if (spare) await unlink(spare).catch(() => undefined);
            throw error;
          }
          renamed = true;
          if (spare) this.spares!.add(spare);
        }
        const sidecar = await this.sidecars.settle(path, step, current?.sidecar ?? null, options.contentType === impliedType);
        this.changed(path);
        this.spellings?.added(path);
        // What was just written is known exactly: the next HEAD or precondition check needs no lstat.
        const meta = metaFromStats(path, written);
        meta.contentType = options.contentType;
        this.cache.rememberSidecar(path, sidecar);
        this.cache.remember(path, meta, bytes && bytes.byteLength <= SMALL_BODY ? bytes : undefined, this.cache.writes);
        return {
          meta,
          created: !before,
          createdContainers,
          previousSize: before ? Number(before.size) : 0,
        };
      });
    } finally {
      if (!renamed) await this.removeTemp(temp, small);
    }
  }

  /** After a create-only link, the temp name only: its file lives on under the new one. */
  private async removeTemp(temp: string, small: boolean): Promise<void> {
    try {
      if (small && this.blocking.allowed) this.blocking.run(() => unlinkSync(temp));
      else await unlink(temp);
    } catch {
      // Swept at the next start, as after a crash.
    }
  }

  /** The containers a new file needs made; none when its parent is there, which a blocking lstat tells. */
  private async makeParents(path: string): Promise<string[]> {
    if (this.blocking.allowed && this.blocking.run(() => this.statSync(parentOf(path)!))?.isDirectory()) return [];
    return makeParents(this.root, path);
  }

  /** A small body in a spare old enough to be written into, else in a new temp file. */
  /** `quick`: written into a spare's own blocks, so renaming it over an old version kept as a spare frees and allocates nothing. */
  private async writeSmall(bytes: Uint8Array): Promise<{ temp: string; written: BigIntStats; quick: boolean }> {
    const expired: string[] = [];
    const spare = this.spares?.take(expired) ?? null;
    await Promise.all(expired.map((old) => unlink(old).catch(() => undefined)));
    if (spare) {
      let written;
      try {
        written = writeSmallIntoSpare(spare, bytes, this.blocking);
      } catch (error) {
        await unlink(spare).catch(() => undefined);
        throw error;
      }
      if (written) return { temp: spare, written: written.stats, quick: written.sameBlocks };
      await unlink(spare).catch(() => undefined);
    }
    const temp = this.tempPath();
    return { temp, written: await writeSmallTempFile(temp, bytes, this.blocking), quick: false };
  }

  private async writeLarge(body: PutBody): Promise<{ temp: string; written: BigIntStats; quick: boolean }> {
    const temp = this.tempPath();
    return { temp, written: await writeTempFile(temp, body), quick: false };
  }

  /** A second name for the version at `target`, to keep its file as a spare once replaced; null if it cannot have one. */
  private async linkSpare(target: string, quick: boolean): Promise<string | null> {
    const spare = this.sparePath();
    try {
      if (quick && this.blocking.allowed) this.blocking.run(() => linkSync(target, spare));
      else await link(target, spare);
      return spare;
    } catch {
      return null;
    }
  }

  async createContainer(path: string): Promise<PutResult | null> {
    const ancestorsExisted = this.spellings ? await this.spellings.check(path) : true;
    this.changed(path);
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
    this.changed(path);
    this.spellings?.added(path);
    return { meta: metaFromStats(path, stats), created: true, createdContainers, previousSize: 0 };
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
      const knownSidecar = meta.isContainer ? null : this.cache.sidecar(path);
      this.changed(path);
      if (meta.isContainer) {
        await removeEmptyDirectory(this.root, path);
      } else {
        const sidecar = knownSidecar !== undefined ? knownSidecar : await this.sidecars.read(path).catch(() => null);
        await unlink(target);
        await this.sidecars.drop(path, sidecar);
      }
      this.changed(path);
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
    const scan = (previous?: readonly ResourceMeta[]) => readMembers(this.root, container, this.blocking, previous);
    const recent = this.listings.recent(container, this.revalidateAfterMs, scan);
    if (recent) return recent;
    const dirStats = await this.statNow(container);
    if (!dirStats?.isDirectory()) throw new StorageError('NotFound', `no container at ${container}`);
    return this.listings.members(container, { ino: dirStats.ino, mtimeNs: dirStats.mtimeNs, meta: metaFromStats(container, dirStats) }, scan);
  }

  async usage(prefix: string): Promise<number> {
    let total = 0;
    const walk = async (container: string): Promise<void> => {
      let children: ResourceMeta[] = [];
      try {
        for await (const child of this.list(container)) children.push(child);
      } catch (error) {
        if (error instanceof StorageError && error.code === 'NotFound') return;
        throw error;
      }
      for (const child of children) {
        if (child.isContainer) await walk(child.path);
        else total += child.size;
      }
      children = [];
    };
    await walk(prefix);
    return total;
  }
}

/** A body held in memory: a stream of it is made only for a reader that asks for one. */
class BytesBody implements StoredBody {
  readonly meta: ResourceMeta;
  readonly bytes: Uint8Array;

  constructor(meta: ResourceMeta, bytes: Uint8Array) {
    this.meta = meta;
    this.bytes = bytes;
  }

  get body(): ReadableStream<Uint8Array> {
    return bytesToStream(this.bytes);
  }
}

function withBytes(meta: ResourceMeta, bytes: Uint8Array): StoredBody {
  return new BytesBody(meta, bytes);
}
