import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { link, lstat, mkdir, open, opendir, readFile, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { KeyedLock } from '../src/storage/keyed-lock.ts';
import { mediaTypeForName } from '../src/storage/media-types.ts';
import { ancestorsOf, nameOf, parentOf, RESERVED_PREFIX, RESERVED_SUFFIX } from '../src/storage/paths.ts';
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

const encoder = new TextEncoder();

function isInternalName(name: string): boolean {
  return name.endsWith(RESERVED_SUFFIX) || name.startsWith(RESERVED_PREFIX);
}

function depthOf(path: string): number {
  return path.split(/[\\/]/).filter(Boolean).length;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Each resource is a plain file at its path under the root and each container a directory, so backups,
 * `git` and quota reconciliation see real files. A content type the file name cannot imply is kept in a
 * sidecar `<name>.svc-meta` that listings and HTTP never show. Writes go to a temp file in the same
 * directory and are renamed (replace) or linked (create-only) into place, so readers see the old or the
 * new version, never a torn one.
 */
export class FsDriver implements StorageDriver {
  readonly name = 'fs';
  readonly capabilities = { ranges: true, crossProcessAtomic: false };
  private readonly lock = new KeyedLock();

  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  static async open(root: string): Promise<FsDriver> {
    const absolute = resolve(root);
    await mkdir(absolute, { recursive: true });
    return new FsDriver(absolute);
  }

  private fsPath(path: string): string {
    return join(this.root, path);
  }

  private sidecarPath(path: string): string {
    return this.fsPath(path) + RESERVED_SUFFIX;
  }

  private async stat(path: string): Promise<BigIntStats | null> {
    try {
      return await lstat(this.fsPath(path), { bigint: true });
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
      throw error;
    }
  }

  private async contentTypeOf(path: string): Promise<string> {
    try {
      return JSON.parse(await readFile(this.sidecarPath(path), 'utf8')).contentType as string;
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return mediaTypeForName(nameOf(path));
      throw error;
    }
  }

  private metaFromStats(path: string, stats: BigIntStats, contentType?: string): ResourceMeta {
    const isContainer = stats.isDirectory();
    return {
      path,
      isContainer,
      contentType,
      size: isContainer ? 0 : Number(stats.size),
      etag: `${isContainer ? 'd' : 'f'}${stats.ino.toString(36)}-${stats.size.toString(36)}-${stats.mtimeNs.toString(36)}`,
      modified: Number(stats.mtimeNs / 1_000_000n),
    };
  }

  /** Stats that match the kind of path asked for; anything else (symlinks, sockets) is invisible. */
  private matches(path: string, stats: BigIntStats | null): stats is BigIntStats {
    if (!stats) return false;
    return path.endsWith('/') ? stats.isDirectory() : stats.isFile();
  }

  async head(path: string): Promise<ResourceMeta | null> {
    const stats = await this.stat(path);
    if (!this.matches(path, stats)) return null;
    return this.metaFromStats(path, stats, stats.isFile() ? await this.contentTypeOf(path) : undefined);
  }

  async get(path: string, options?: { range?: { start: number; end?: number } }): Promise<StoredBody | null> {
    if (path.endsWith('/')) {
      const meta = await this.head(path);
      return meta ? { meta, body: new ReadableStream({ start: (c) => c.close() }) } : null;
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
      const meta = this.metaFromStats(path, stats, await this.contentTypeOf(path));
      let range: { start: number; end: number } | undefined;
      if (options?.range) range = { start: options.range.start, end: Math.min(options.range.end ?? meta.size - 1, meta.size - 1) };
      const nodeStream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return { meta, body: Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>, range };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null> {
    const target = this.fsPath(path);
    if (options.ifMatch !== undefined && !(await this.head(path))) return null;
    const createdContainers = await this.ensureParent(path);
    const temp = join(target, '..', `${RESERVED_PREFIX}-${randomBytes(6).toString('hex')}`);
    await this.writeTemp(temp, body);
    try {
      return await this.lock.run(target, async () => {
        const before = await this.stat(path);
        if (before?.isDirectory()) throw new StorageError('Conflict', `a container exists at ${path}/`);
        if (options.ifNoneMatch === '*' && before) return null;
        if (options.ifMatch !== undefined) {
          if (!before?.isFile() || this.metaFromStats(path, before).etag !== options.ifMatch) return null;
        }
        const impliedType = mediaTypeForName(nameOf(path));
        if (options.ifNoneMatch === '*') {
          try {
            await link(temp, target);
          } catch (error) {
            if (errorCode(error) === 'EEXIST') return null;
            throw error;
          }
          await this.writeSidecar(path, options.contentType, impliedType);
        } else {
          await this.writeSidecar(path, options.contentType, impliedType);
          await rename(temp, target);
        }
        const after = await lstat(target, { bigint: true });
        return {
          meta: this.metaFromStats(path, after, options.contentType),
          created: !before,
          createdContainers,
          previousSize: before ? Number(before.size) : 0,
        };
      });
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async createContainer(path: string): Promise<PutResult | null> {
    const createdContainers = await this.ensureParent(path);
    try {
      await mkdir(this.fsPath(path));
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const stats = await this.stat(path);
      if (stats?.isDirectory()) return null;
      throw new StorageError('Conflict', `a resource exists at ${path.slice(0, -1)}`);
    }
    const stats = await lstat(this.fsPath(path), { bigint: true });
    return { meta: this.metaFromStats(path, stats), created: true, createdContainers, previousSize: 0 };
  }

  async delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null> {
    if (path === '/') throw new StorageError('Conflict', 'the root cannot be deleted');
    const target = this.fsPath(path);
    return this.lock.run(target, async () => {
      const stats = await this.stat(path);
      if (!this.matches(path, stats)) return null;
      const meta = this.metaFromStats(path, stats);
      if (options?.ifMatch !== undefined && meta.etag !== options.ifMatch) return null;
      if (meta.isContainer) {
        await this.removeEmptyDirectory(path);
      } else {
        await unlink(target);
        await unlink(this.sidecarPath(path)).catch(() => undefined);
      }
      return meta;
    });
  }

  async *list(container: string): AsyncIterable<ResourceMeta> {
    let dir;
    try {
      dir = await opendir(this.fsPath(container));
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new StorageError('NotFound', `no container at ${container}`);
      throw error;
    }
    const batch: Promise<ResourceMeta | null>[] = [];
    const statChild = async (childPath: string) => {
      const stats = await this.stat(childPath);
      return stats && (stats.isFile() || stats.isDirectory()) ? this.metaFromStats(childPath, stats) : null;
    };
    for await (const entry of dir) {
      if (isInternalName(entry.name)) continue;
      if (entry.isDirectory()) batch.push(statChild(`${container}${entry.name}/`));
      else if (entry.isFile()) batch.push(statChild(container + entry.name));
      if (batch.length >= 64) {
        for (const meta of await Promise.all(batch.splice(0))) if (meta) yield meta;
      }
    }
    for (const meta of await Promise.all(batch)) if (meta) yield meta;
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

  /** Creates the missing ancestors of a path; returns the storage paths of those it created. */
  private async ensureParent(path: string): Promise<string[]> {
    const parent = parentOf(path)!;
    let first: string | undefined;
    try {
      first = await mkdir(this.fsPath(parent), { recursive: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOTDIR' || code === 'EEXIST') {
        throw new StorageError('Conflict', `a resource stands where ${path} needs a container`);
      }
      throw error;
    }
    if (first === undefined) return [];
    const firstDepth = depthOf(first.slice(this.root.length));
    return ancestorsOf(path).filter((ancestor) => depthOf(ancestor) >= firstDepth);
  }

  private async writeTemp(temp: string, body: PutBody): Promise<void> {
    const handle = await open(temp, 'wx');
    try {
      if (typeof body === 'string') await handle.writeFile(encoder.encode(body));
      else if (body instanceof Uint8Array) await handle.writeFile(body);
      else {
        const reader = body.getReader();
        for (;;) {
          let chunk;
          try {
            chunk = await reader.read();
          } catch (error) {
            throw new StorageError('BodyAborted', 'the request body ended early', { cause: error });
          }
          if (chunk.done) break;
          await handle.write(chunk.value);
        }
      }
    } catch (error) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
  }

  private async writeSidecar(path: string, contentType: string, impliedType: string): Promise<void> {
    const sidecar = this.sidecarPath(path);
    if (contentType === impliedType) {
      await unlink(sidecar).catch(() => undefined);
      return;
    }
    const temp = `${sidecar}.${randomBytes(4).toString('hex')}${RESERVED_SUFFIX}`;
    await writeFile(temp, JSON.stringify({ contentType }));
    await rename(temp, sidecar);
  }

  private async removeEmptyDirectory(path: string): Promise<void> {
    const target = this.fsPath(path);
    const internal: string[] = [];
    for await (const entry of await opendir(target)) {
      if (!isInternalName(entry.name)) throw new StorageError('NotEmpty', `${path} is not empty`);
      internal.push(entry.name);
    }
    await Promise.all(internal.map((name) => unlink(join(target, name)).catch(() => undefined)));
    try {
      await rmdir(target);
    } catch (error) {
      if (errorCode(error) === 'ENOTEMPTY') throw new StorageError('NotEmpty', `${path} is not empty`);
      throw error;
    }
  }
}
