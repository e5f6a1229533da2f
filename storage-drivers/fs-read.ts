import { fstatSync, type BigIntStats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { bytesToStream } from '../src/storage/body.ts';
import type { ResourceMeta, StoredBody } from '../src/storage/types.ts';
import type { BlockingCalls } from './fs-blocking.ts';
import { errorCode, readSmallSync } from './fs-entries.ts';
import { SMALL_BODY } from './fs-temp-files.ts';

/** A file as read: a small one whole, a larger one as a stream (of the range asked for); 'changed' when it changed while read. */
export type FileRead =
  | { stats: BigIntStats; bytes: Uint8Array }
  | { stats: BigIntStats; body: ReadableStream<Uint8Array>; range?: { start: number; end: number } }
  | 'changed'
  | null;

/**
 * Reads the file at `file`: a small one whole, in a blocking call where allowed; a larger one as a stream. A
 * small file may be a spare written into again once replaced (fs-spares.ts): what was read is one version only
 * if the file did not change meanwhile, so its stats are compared before and after.
 */
export async function readFileAt(file: string, blocking: BlockingCalls, range?: { start: number; end?: number }): Promise<FileRead> {
  if (blocking.allowed) {
    const read = blocking.run(() => readSmallSync(file, SMALL_BODY));
    if (read !== 'large') return read;
  }
  let handle;
  try {
    handle = await open(file, 'r');
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
    const size = Number(stats.size);
    if (size <= SMALL_BODY) {
      const bytes = new Uint8Array(await handle.readFile());
      const after = blocking.allowed ? blocking.run(() => fstatSync(handle.fd, { bigint: true })) : await handle.stat({ bigint: true });
      await handle.close();
      if (after.mtimeNs !== stats.mtimeNs || after.size !== stats.size) return 'changed';
      // Between the open and its stat the file may have been replaced and written into as a spare for another
      // resource (a slow disk leaves time for that here): the path must still name the file read.
      const named = await lstat(file, { bigint: true }).catch(() => null);
      return named?.ino === stats.ino ? { stats, bytes } : 'changed';
    }
    const cut = range ? { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) } : undefined;
    const nodeStream = handle.createReadStream(cut ? { start: cut.start, end: cut.end } : {});
    return { stats, body: Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>, ...(cut && { range: cut }) };
  } catch (error) {
    await handle.close();
    throw error;
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

export function withBytes(meta: ResourceMeta, bytes: Uint8Array): StoredBody {
  return new BytesBody(meta, bytes);
}
