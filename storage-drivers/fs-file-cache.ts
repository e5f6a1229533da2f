import { BoundedCache } from '../src/storage/bounded-cache.ts';
import { stringBytes } from '../src/storage/cache-budget.ts';
import { bytesToStream } from '../src/storage/body.ts';
import type { ResourceMeta, StoredBody } from '../src/storage/types.ts';
import { withBytes } from './fs-read.ts';
import type { SidecarRecord } from './fs-sidecar.ts';

/**
 * What a file's entry keeps alive besides its path, its ETag and its body's bytes: the map's slot and the
 * cache's entry object, the CachedFile and its time, the ResourceMeta with its date and its content type. These
 * constants were measured with `npm run bench:cache-weights` (docs/decisions.md, "Caches and their bounds").
 */
const FILE_ENTRY_BYTES = 600;
/** A cached body's Uint8Array and ArrayBuffer, and the backing store's record outside the heap. */
const BODY_OBJECTS_BYTES = 200;
/** A sidecar's entry besides its path: the map's slot and the cache's entry object. */
const SIDECAR_ENTRY_BYTES = 144;
/** A sidecar record's object (and its `previous`'s), besides their strings. */
const SIDECAR_RECORD_BYTES = 64;

/** Paths with a segment starting with a dot: files svc's commands and other tools edit behind the server. */
const DOT_SEGMENT = /\/\./;

/** What was last seen of a file: its metadata, and its body when it is small and was read. */
export interface CachedFile {
  meta: ResourceMeta;
  bytes?: Uint8Array;
  checkedAt: number;
}

/**
 * What the fs driver remembers of files: metadata and small bodies (served without looking at the file for
 * `revalidateAfterMs`, dot-files never), and what content-type sidecars say (null: there is none). Every write through the driver
 * calls `changed` before and after it; a read that overlapped a write (the write count moved) is not kept.
 */
export class FileCache {
  readonly #files: BoundedCache<string, CachedFile>;
  /** The record, or null for a file without a sidecar. */
  readonly #sidecars: BoundedCache<string, SidecarRecord | null>;
  readonly #revalidateAfterMs: number;
  #writes = 0;

  /** `budgets` in bytes: the bodies with their metadata, and the sidecars. */
  constructor(revalidateAfterMs: number, budgets: { fileBodies: number; fileTypes: number }) {
    this.#revalidateAfterMs = revalidateAfterMs;
    this.#files = new BoundedCache(budgets.fileBodies, fileBytes);
    this.#sidecars = new BoundedCache(budgets.fileTypes, sidecarBytes);
  }

  /** Taken before a read; `remember*` keeps the result only if no write happened since. */
  get writes(): number {
    return this.#writes;
  }

  /** What is cached of a file, if it may be served without checking the file. */
  fresh(path: string): CachedFile | undefined {
    const cached = this.#files.get(path);
    if (!cached || performance.now() - cached.checkedAt >= this.#revalidateAfterMs || DOT_SEGMENT.test(path)) return undefined;
    return cached;
  }

  /** A fresh copy's bytes as a stored body, if it may be served without checking the file. */
  freshBody(path: string): StoredBody | undefined {
    const fresh = this.fresh(path);
    return fresh?.bytes ? withBytes(fresh.meta, fresh.bytes) : undefined;
  }

  /** A small file read whole: kept as the cached body, or the range asked for cut from it. */
  smallBody(path: string, meta: ResourceMeta, bytes: Uint8Array, range: { start: number; end?: number } | undefined, writes: number): StoredBody {
    if (!range) {
      if (bytes.byteLength === meta.size) this.remember(path, meta, bytes, writes);
      return withBytes(meta, bytes);
    }
    const end = Math.min(range.end ?? meta.size - 1, meta.size - 1);
    return { meta, body: bytesToStream(bytes.subarray(range.start, end + 1)), range: { start: range.start, end } };
  }

  /** What is cached of a file, however old (to be checked against the file's ETag). */
  known(path: string): CachedFile | undefined {
    return this.#files.get(path);
  }

  /** Records metadata (and a body) just read, keeping a cached body that still matches the ETag. */
  remember(path: string, meta: ResourceMeta, bytes: Uint8Array | undefined, writesBefore: number): void {
    if (this.#writes !== writesBefore) return;
    const known = this.#files.get(path);
    this.#files.set(path, { meta, bytes: bytes ?? (known?.meta.etag === meta.etag ? known.bytes : undefined), checkedAt: performance.now() });
  }

  sidecar(path: string): SidecarRecord | null | undefined {
    return this.#sidecars.get(path);
  }

  rememberSidecar(path: string, sidecar: SidecarRecord | null, writesBefore = this.#writes): void {
    if (this.#writes === writesBefore) this.#sidecars.set(path, sidecar);
  }

  /** Forgets every file under a container, after another program changed them. */
  changedUnder(container: string): void {
    this.#writes++;
    const inside = (path: string) => path.startsWith(container);
    this.#files.deleteWhere(inside);
    this.#sidecars.deleteWhere(inside);
  }

  /** Forgets a path's metadata, body and sidecar. */
  changed(path: string): void {
    this.#writes++;
    this.#files.delete(path);
    this.#sidecars.delete(path);
  }
}

/** What a file's entry keeps alive: the key is the metadata's path; a body keeps its whole buffer (a view would keep more than its bytes). */
function fileBytes(entry: CachedFile, path: string): number {
  return FILE_ENTRY_BYTES + stringBytes(path) + stringBytes(entry.meta.etag) + (entry.bytes ? BODY_OBJECTS_BYTES + entry.bytes.buffer.byteLength : 0);
}

function sidecarBytes(record: SidecarRecord | null, path: string): number {
  let bytes = SIDECAR_ENTRY_BYTES + stringBytes(path);
  if (record) bytes += SIDECAR_RECORD_BYTES + stringBytes(record.contentType);
  if (record?.previous) bytes += SIDECAR_RECORD_BYTES + stringBytes(record.previous.etag) + stringBytes(record.previous.contentType);
  return bytes;
}
