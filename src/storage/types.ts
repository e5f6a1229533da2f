/**
 * The resource storage contract. Paths are decoded, absolute storage paths: they start with `/`,
 * containers end with `/`, and every segment has already passed `src/storage/paths.ts`.
 */

export interface ResourceMeta {
  path: string;
  isContainer: boolean;
  /** Stored media type; containers have none. */
  contentType?: string;
  size: number;
  /** Strong entity tag, without quotes. Changes with every write. */
  etag: string;
  /** Milliseconds since the epoch. */
  modified: number;
}

export interface StoredBody {
  meta: ResourceMeta;
  body: ReadableStream<Uint8Array>;
  /** The whole body, when the driver already holds it in memory; `body` streams the same bytes. */
  bytes?: Uint8Array;
  /** Present when a byte range was served: the inclusive range actually read. */
  range?: { start: number; end: number };
}

export type PutBody = ReadableStream<Uint8Array> | Uint8Array | string;

export interface PutOptions {
  contentType: string;
  /** Compare-and-swap: write only when the current ETag equals this value. */
  ifMatch?: string;
  /** `'*'`: create only, fail when anything exists at the path. */
  ifNoneMatch?: '*';
}

export interface PutResult {
  meta: ResourceMeta;
  /** True when nothing existed at the path before. */
  created: boolean;
  /** Containers created implicitly on the way, outermost first. */
  createdContainers: string[];
  /** Size of the replaced resource, 0 when created. */
  previousSize: number;
}

export interface DeleteOptions {
  ifMatch?: string;
}

export interface DriverCapabilities {
  /** `get` can serve byte ranges without reading the whole body. */
  ranges: boolean;
  /** Create-only and compare-and-swap are atomic against other processes, not only this one. */
  crossProcessAtomic: boolean;
  /**
   * Create-only writes and container creations alone are atomic against other processes (fs: `link`,
   * `mkdir`), where compare-and-swap is not. Implied by `crossProcessAtomic`.
   */
  crossProcessCreateOnly?: boolean;
}

export interface StorageDriver {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  head(path: string): Promise<ResourceMeta | null>;
  /** `range.end` is inclusive; the driver clamps it to the size. */
  get(path: string, options?: { range?: { start: number; end?: number } }): Promise<StoredBody | null>;
  /**
   * Optional: a resource's bytes, at once, when the driver holds a copy it may serve without looking at the
   * store (a small file read lately); undefined when it must be read with `get`. A warm GET awaits nothing.
   */
  held?(path: string): StoredBody | undefined;
  /** Returns null when `ifMatch`/`ifNoneMatch` does not hold. Creates missing ancestor containers. */
  put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null>;
  /** Creates the container and its missing ancestors. Returns null when it already exists. */
  createContainer(path: string): Promise<PutResult | null>;
  /** Returns the deleted resource's metadata, or null when nothing was there or `ifMatch` failed. */
  delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null>;
  /** Direct children of a container, in no particular order. Throws NotFound for a missing container. */
  list(container: string): AsyncIterable<ResourceMeta>;
  /**
   * Optional: the same members as `list`, all at once, as an array the driver may hand out again (the same
   * object) while the container is unchanged, so callers can reuse what they derive from it.
   */
  children?(container: string): Promise<readonly ResourceMeta[]>;
  /** Bytes used by every resource under the prefix (a container path). */
  usage(prefix: string): Promise<number>;
  /**
   * True when the driver found on opening that the last server using the storage did not stop cleanly (it
   * crashed or was killed), so bookkeeping kept beside the data (quota records) must be recounted.
   */
  readonly uncleanStop?: boolean;
  /**
   * True when the driver keeps a running marker, so that the next start after a crash reports `uncleanStop`
   * and the quota records are recounted: bookkeeping may then be saved lazily (see src/quota/ledger.ts).
   */
  readonly recountsAfterUncleanStop?: boolean;
  /**
   * Optional, for drivers that cache: forgets what is cached of a container and everything under it, after
   * another program (git) changed those files.
   */
  forgetCached?(container: string): void;
  /**
   * Optional, for drivers that tell types by names: a file another program wrote (git) has `contentType`, which
   * the driver keeps with it where its name implies another.
   */
  keepType?(path: string, contentType: string): Promise<void>;
  close?(): Promise<void>;
}

export type StorageErrorCode =
  /** A resource stands where a container is needed, or the reverse (`/a/x` vs `/a/x/`). */
  | 'Conflict'
  | 'NotEmpty'
  | 'NotFound'
  /** The body stream failed or was cut off; nothing was written. */
  | 'BodyAborted'
  /** The storage service (an S3 endpoint) cannot be reached or refuses to work just now; try again later. */
  | 'Unavailable'
  /**
   * A segment names an existing file or directory in another spelling than the one stored, on storage that
   * ignores case or normalises names (the fs driver on such a disk), or a new name would fold onto an
   * existing one. The message names the stored spelling.
   */
  | 'SpelledOtherwise';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

/**
 * A segment of a path names an entry of `directory` in another spelling than the stored one, on storage that
 * ignores case or normalises names; the message names the stored spelling. Only whoever may read `directory`
 * learns it (see src/wac/web-access-control.ts): to others such a name is as unknown as any they cannot list.
 */
export class SpelledOtherwiseError extends StorageError {
  readonly directory: string;
  constructor(directory: string, message: string) {
    super('SpelledOtherwise', message);
    this.directory = directory;
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
