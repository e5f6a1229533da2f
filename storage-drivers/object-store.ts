import { toBase64Url } from '../src/http/base64url.ts';
import { bodyToBytes } from '../src/storage/body.ts';
import { ancestorsOf, isReservedName, nameOf, parentOf } from '../src/storage/paths.ts';
import {
  StorageError,
  type DeleteOptions,
  type DriverCapabilities,
  type PutBody,
  type PutOptions,
  type PutResult,
  type ResourceMeta,
  type StorageDriver,
  type StoredBody,
} from '../src/storage/types.ts';

/*
 * The object-store operations the driver uses, in the shape of the Workers `R2Bucket` binding (typed locally
 * so the core tsconfig, DOM lib, does not have to load @cloudflare/workers-types). A real binding, the bucket
 * Miniflare's `getR2Bucket()` returns in Node, and the S3 client of storage-drivers/s3-bucket.ts all fit it.
 */
export interface R2Conditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
}
export interface R2HttpMetadata {
  contentType?: string;
}
export interface R2ObjectInfo {
  key: string;
  /** Changes with every upload of the key. */
  version: string;
  size: number;
  etag: string;
  uploaded: Date;
  /** In listings only when asked for (`include`), and only where the store can list it (not S3). */
  httpMetadata?: R2HttpMetadata;
  customMetadata?: Record<string, string>;
}
export interface R2ObjectWithBody extends R2ObjectInfo {
  body: ReadableStream<Uint8Array>;
}
export interface R2ListPage {
  objects: R2ObjectInfo[];
  delimitedPrefixes: string[];
  truncated: boolean;
  cursor?: string;
}
export interface ObjectBucket {
  head(key: string): Promise<R2ObjectInfo | null>;
  get(key: string, options?: { range?: { offset: number; length?: number } }): Promise<R2ObjectWithBody | R2ObjectInfo | null>;
  put(
    key: string,
    value: ArrayBuffer | ArrayBufferView | string | null,
    options?: { onlyIf?: R2Conditional; httpMetadata?: R2HttpMetadata; customMetadata?: Record<string, string> },
  ): Promise<R2ObjectInfo | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: {
    prefix?: string;
    delimiter?: string;
    cursor?: string;
    limit?: number;
    include?: ('httpMetadata' | 'customMetadata')[];
  }): Promise<R2ListPage>;
}

export interface ObjectStoreOptions {
  /**
   * Key prefix inside the bucket (e.g. `pods/`), so one bucket can hold several stores. Empty by default:
   * the storage path `/a/b` is the key `a/b`.
   */
  prefix?: string;
  /** Keys per list call (R2 and S3 allow up to 1,000, their default); smaller values exercise paging in tests. */
  pageSize?: number;
}

/** The key prefix of a store (`pods` -> `pods/`; empty: none). */
export function keyPrefix(prefix = ''): string {
  return prefix === '' || prefix.endsWith('/') ? prefix : prefix + '/';
}

/** Heads issued at once when a listing needs the metadata of sub-containers. */
const HEAD_BATCH = 32;

const encoder = new TextEncoder();

/** A short strong tag for a text: the first 96 bits of its SHA-256, base64url. */
async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return toBase64Url(hash.subarray(0, 12));
}

/**
 * Resources in an object store (R2, S3). The key of a resource is its storage path without the leading
 * slash; a container is a zero-byte marker object whose key ends with `/` (the root is implicit), and keys
 * under a prefix with no marker (written by other tools) make an implicit container. Create-only and
 * compare-and-swap writes are conditional puts (`onlyIf`), atomic across processes where the store honours
 * them.
 *
 * ETags: a resource's ETag is the store's (the MD5 of its bytes for single-part uploads), so `ifMatch` maps
 * onto `onlyIf.etagMatches` exactly. A container's ETag is a digest of its direct members (keys, ETags,
 * upload times), computed from the listing when the container itself is asked for, so it changes with its
 * listing without rewriting a marker on every write (R2 allows about one write per second to one key).
 *
 * Not atomic in the store (checked, then done): `delete` with `ifMatch`, the `/a/x` vs `/a/x/` conflict rule
 * under concurrent writers, and "container is empty" before a container delete. Bodies are buffered
 * before the put, because the store needs to know a body's length up front.
 */
export class ObjectStoreDriver implements StorageDriver {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  protected readonly bucket: ObjectBucket;
  private readonly prefix: string;
  private readonly pageSize: number | undefined;

  constructor(name: string, capabilities: DriverCapabilities, bucket: ObjectBucket, options: ObjectStoreOptions = {}) {
    this.name = name;
    this.capabilities = capabilities;
    this.bucket = bucket;
    this.prefix = keyPrefix(options.prefix);
    this.pageSize = options.pageSize;
  }

  /** `/a/b` -> `a/b`, `/a/` -> `a/`, `/` -> `` (all under the prefix). */
  protected key(path: string): string {
    return this.prefix + path.slice(1);
  }

  private pathOf(key: string): string {
    return '/' + key.slice(this.prefix.length);
  }

  /** `listed`: from a listing, which carries the content type only where the store lists it. */
  private resourceMeta(path: string, object: R2ObjectInfo, listed = false): ResourceMeta {
    return {
      path,
      isContainer: false,
      contentType: listed && !object.httpMetadata ? undefined : (object.httpMetadata?.contentType ?? 'application/octet-stream'),
      size: object.size,
      etag: object.etag,
      modified: object.uploaded.getTime(),
    };
  }

  /**
   * Metadata of a sub-container as a listing shows it, from its marker alone (one head, no listing): its
   * ETag here is the marker's version, not the member digest `head()` returns.
   */
  private memberContainerMeta(path: string, marker: R2ObjectInfo | null): ResourceMeta {
    return {
      path,
      isContainer: true,
      size: 0,
      etag: marker ? `v${marker.version}` : 'v0',
      modified: marker ? marker.uploaded.getTime() : 0,
    };
  }

  /** A container exists when its marker does, or (for buckets filled by other tools) when keys lie under it. */
  private async containerExists(path: string): Promise<boolean> {
    if (path === '/' || (await this.bucket.head(this.key(path)))) return true;
    const under = await this.bucket.list({ prefix: this.key(path), limit: 1 });
    return under.objects.length > 0 || under.delimitedPrefixes.length > 0;
  }

  /** A container's metadata: ETag and modification time come from its direct members (all pages). */
  private async headContainer(path: string): Promise<ResourceMeta | null> {
    const prefix = this.key(path);
    const parts: string[] = [];
    /** Some stores (s3rver) repeat a common prefix on the next page. */
    const seen = new Set<string>();
    let found = path === '/';
    let modified = 0;
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({
        prefix,
        delimiter: '/',
        ...(this.pageSize === undefined ? {} : { limit: this.pageSize }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const object of page.objects) {
        found = true;
        if (object.key !== prefix && isReservedName(nameOf(this.pathOf(object.key)))) continue;
        modified = Math.max(modified, object.uploaded.getTime());
        parts.push(`${object.key}\t${object.etag}\t${object.uploaded.getTime()}`);
      }
      for (const sub of page.delimitedPrefixes) {
        found = true;
        if (!seen.has(sub)) parts.push(sub);
        seen.add(sub);
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    if (!found) return null;
    return { path, isContainer: true, size: 0, etag: `c${await digest(parts.join('\n'))}`, modified };
  }

  async head(path: string): Promise<ResourceMeta | null> {
    if (path.endsWith('/')) return this.headContainer(path);
    const object = await this.bucket.head(this.key(path));
    return object ? this.resourceMeta(path, object) : null;
  }

  async get(path: string, options?: { range?: { start: number; end?: number } }): Promise<StoredBody | null> {
    if (path.endsWith('/')) {
      const meta = await this.headContainer(path);
      return meta ? { meta, body: new ReadableStream({ start: (controller) => controller.close() }) } : null;
    }
    const range = options?.range;
    const request =
      range === undefined
        ? undefined
        : { range: { offset: range.start, ...(range.end === undefined ? {} : { length: Math.max(0, range.end - range.start + 1) }) } };
    const object = await this.bucket.get(this.key(path), request);
    if (!object || !('body' in object)) return null;
    const meta = this.resourceMeta(path, object);
    if (!range) return { meta, body: object.body };
    const end = Math.min(range.end ?? meta.size - 1, meta.size - 1);
    return { meta, body: object.body, range: { start: range.start, end } };
  }

  async put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null> {
    const data = await readBody(body);
    const key = this.key(path);
    // A resource already there stands in a container that exists, and no container can have its name (every
    // write keeps the two apart): an overwrite, the common write, checks neither (each check is a request).
    const before = await this.bucket.head(key);
    if (options.ifNoneMatch === '*' && before) return null;
    if (options.ifMatch !== undefined && before?.etag !== options.ifMatch) return null;
    if (!before && (await this.containerExists(path + '/'))) {
      if (options.ifNoneMatch === '*') return null;
      throw new StorageError('Conflict', `a container exists at ${path}/`);
    }
    const createdContainers = before ? [] : await this.ensureAncestors(path);

    const onlyIf: R2Conditional | undefined =
      options.ifNoneMatch === '*' ? { etagDoesNotMatch: '*' } : options.ifMatch !== undefined ? { etagMatches: options.ifMatch } : undefined;
    const written = await this.bucket.put(key, data, {
      httpMetadata: { contentType: options.contentType },
      ...(onlyIf ? { onlyIf } : {}),
    });
    if (!written) return null;
    const created = options.ifNoneMatch === '*' ? true : options.ifMatch !== undefined ? false : !before;
    return {
      meta: this.resourceMeta(path, written),
      created,
      createdContainers,
      previousSize: created ? 0 : (before?.size ?? 0),
    };
  }

  async createContainer(path: string): Promise<PutResult | null> {
    const resourcePath = path.slice(0, -1);
    if (await this.containerExists(path)) return null;
    if (await this.bucket.head(this.key(resourcePath))) throw new StorageError('Conflict', `a resource exists at ${resourcePath}`);
    const createdContainers = await this.ensureAncestors(path);
    const marker = await this.bucket.put(this.key(path), '', { onlyIf: { etagDoesNotMatch: '*' } });
    if (!marker) return null;
    const meta = await this.headContainer(path);
    return { meta: meta ?? this.memberContainerMeta(path, marker), created: true, createdContainers, previousSize: 0 };
  }

  async delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null> {
    if (path === '/') throw new StorageError('Conflict', 'the root cannot be deleted');
    const meta = await this.head(path);
    if (!meta) return null;
    if (options?.ifMatch !== undefined && meta.etag !== options.ifMatch) return null;
    if (meta.isContainer) {
      const key = this.key(path);
      const members = await this.bucket.list({ prefix: key, limit: 2 });
      const others = members.objects.filter((object) => object.key !== key).length + members.delimitedPrefixes.length;
      if (others > 0) throw new StorageError('NotEmpty', `${path} is not empty`);
    }
    await this.bucket.delete(this.key(path));
    return meta;
  }

  async *list(container: string): AsyncIterable<ResourceMeta> {
    if (!(await this.containerExists(container))) throw new StorageError('NotFound', `no container at ${container}`);
    const prefix = this.key(container);
    const yielded = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({
        prefix,
        delimiter: '/',
        include: ['httpMetadata'],
        ...(this.pageSize === undefined ? {} : { limit: this.pageSize }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const object of page.objects) {
        if (object.key === prefix) continue;
        const path = this.pathOf(object.key);
        if (isReservedName(nameOf(path))) continue;
        yield this.resourceMeta(path, object, true);
      }
      const containers = page.delimitedPrefixes.map((key) => this.pathOf(key)).filter((path) => !isReservedName(nameOf(path)) && !yielded.has(path));
      for (const path of containers) yielded.add(path);
      for (let i = 0; i < containers.length; i += HEAD_BATCH) {
        const batch = containers.slice(i, i + HEAD_BATCH);
        const markers = await Promise.all(batch.map((path) => this.bucket.head(this.key(path))));
        for (let j = 0; j < batch.length; j++) yield this.memberContainerMeta(batch[j]!, markers[j] ?? null);
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
  }

  async usage(prefix: string): Promise<number> {
    let total = 0;
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({
        prefix: this.key(prefix),
        ...(this.pageSize === undefined ? {} : { limit: this.pageSize }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const object of page.objects) {
        if (object.key.endsWith('/') || isReservedName(nameOf(this.pathOf(object.key)))) continue;
        total += object.size;
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return total;
  }

  /** Creates the missing ancestor containers of a path, outermost first; returns those this call created. */
  private async ensureAncestors(path: string): Promise<string[]> {
    const parent = parentOf(path)!;
    if (parent === '/' || (await this.bucket.head(this.key(parent)))) return [];
    const created: string[] = [];
    for (const ancestor of ancestorsOf(path)) {
      if (ancestor === '/') continue;
      const key = this.key(ancestor);
      if (await this.bucket.head(key)) continue;
      if (await this.bucket.head(key.slice(0, -1))) {
        throw new StorageError('Conflict', `a resource exists at ${ancestor.slice(0, -1)}`);
      }
      const implicit = await this.bucket.list({ prefix: key, limit: 1 });
      const marker = await this.bucket.put(key, '', { onlyIf: { etagDoesNotMatch: '*' } });
      if (marker && implicit.objects.length === 0 && implicit.delimitedPrefixes.length === 0) created.push(ancestor);
    }
    return created;
  }
}

/** The whole body, so R2 gets a value of known length; a failing stream stores nothing. */
async function readBody(body: PutBody): Promise<Uint8Array | string> {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  try {
    return await bodyToBytes(body);
  } catch (error) {
    throw new StorageError('BodyAborted', 'the request body ended early', { cause: error });
  }
}
