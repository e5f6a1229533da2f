import type { BigIntStats } from 'node:fs';
import { closeSync, fstatSync, openSync, rmSync, writeSync } from 'node:fs';
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { StorageError, type PutBody } from '../src/storage/types.ts';
import type { SidecarRecord } from './fs-sidecar.ts';

const encoder = new TextEncoder();

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
 * `writeTempFile` for a small body held whole, in blocking calls (see fs-blocking.ts).
 */
export function writeTempFileSync(temp: string, bytes: Uint8Array): BigIntStats {
  const fd = openSync(temp, 'wx');
  let stats: BigIntStats;
  try {
    for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written);
    stats = fstatSync(fd, { bigint: true });
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return stats;
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
