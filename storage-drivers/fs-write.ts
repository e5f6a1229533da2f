import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { RESERVED_SUFFIX } from '../src/storage/paths.ts';
import { StorageError, type PutBody } from '../src/storage/types.ts';

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
 * Keeps the content type a file name cannot tell in its sidecar, atomically; removes the sidecar when the name
 * tells it. `knownType`: the type cached for the path, which the sidecar on disk already says.
 */
export async function writeSidecarFile(sidecar: string, contentType: string, impliedType: string, knownType?: string): Promise<void> {
  if (knownType === contentType) return;
  if (contentType === impliedType) {
    await unlink(sidecar).catch(() => undefined);
    return;
  }
  const temp = `${sidecar}.${randomBytes(4).toString('hex')}${RESERVED_SUFFIX}`;
  await writeFile(temp, JSON.stringify({ contentType }));
  await rename(temp, sidecar);
}
