import { closeSync, fstatSync, ftruncateSync, open as openCallback, openSync, rmSync, writeSync, type BigIntStats } from 'node:fs';
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { StorageError, type PutBody } from '../src/storage/types.ts';
import type { BlockingCalls } from './fs-blocking.ts';
import type { SidecarRecord } from './fs-sidecar.ts';

const encoder = new TextEncoder();
/** `open` without a FileHandle: a plain descriptor for the blocking calls that follow. */
const openFd = promisify(openCallback);

/** Writes a body to a new temp file (create-only) and returns the file's stats; a failed write leaves no file. */
export async function writeTempFile(temp: string, body: PutBody): Promise<BigIntStats> {
  const handle = await open(temp, 'wx');
  let stats: BigIntStats;
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
    stats = await handle.stat({ bigint: true });
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return stats;
}

/**
 * `writeTempFile` for a small body held whole: written, stat'ed and closed in blocking calls through
 * `blocking` (see fs-blocking.ts). Creating the file is a change to its directory, which may wait on the file
 * system's journal, so it is opened in the thread pool.
 */
export async function writeSmallTempFile(temp: string, bytes: Uint8Array, blocking: BlockingCalls): Promise<BigIntStats> {
  const fd = await openFd(temp, 'wx');
  let stats: BigIntStats;
  try {
    stats = blocking.run(() => {
      for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written);
      return fstatSync(fd, { bigint: true });
    });
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return stats;
}

/**
 * `writeSmallTempFile` into a spare (fs-spares.ts): an existing file of the data root opened, written over from
 * the start and cut to the body's length, in blocking calls (none of them changes a directory). Null when the
 * spare is gone or has another name beside the spare's (then nothing was written), for the caller to remove it
 * and make a new temp file instead. `sameBlocks`: the body fit in the blocks the file had, so none waits to be
 * allocated (a rename over an old version starts writing such blocks out, see fs-blocking.ts).
 */
export function writeSmallIntoSpare(spare: string, bytes: Uint8Array, blocking: BlockingCalls): { stats: BigIntStats; sameBlocks: boolean } | null {
  return blocking.run(() => {
    let fd;
    try {
      fd = openSync(spare, 'r+');
    } catch {
      return null;
    }
    try {
      const before = fstatSync(fd, { bigint: true });
      if (!before.isFile() || before.nlink !== 1n) return null;
      for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written, bytes.byteLength - written, written);
      if (before.size > BigInt(bytes.byteLength)) ftruncateSync(fd, bytes.byteLength);
      const stats = fstatSync(fd, { bigint: true });
      // Where timestamps are coarse (HFS+, FAT), a body of the same size in the same tick would repeat the
      // spare's last ETag (inode, size, mtime): the caller then writes a new file instead.
      if (stats.mtimeNs === before.mtimeNs) return null;
      // ext4 counts blocks reserved for delayed allocation too: no more blocks, none left to allocate.
      return { stats, sameBlocks: stats.blocks <= before.blocks };
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * Replaces a sidecar atomically. The temp file is named by the caller in the data directory's root: beside a
 * name of the longest length there is no room for a longer temp name.
 */
export async function writeSidecarFile(sidecar: string, temp: string, record: SidecarRecord): Promise<void> {
  try {
    await writeFile(temp, JSON.stringify(record), { flag: 'wx' });
    await rename(temp, sidecar);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
