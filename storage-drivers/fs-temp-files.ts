import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs';
import { link, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { RESERVED_PREFIX } from '../src/storage/paths.ts';
import type { PutBody } from '../src/storage/types.ts';
import type { BlockingCalls } from './fs-blocking.ts';
import type { SpareFiles } from './fs-spares.ts';
import { writeSmallIntoSpare, writeSmallTempFile, writeTempFile } from './fs-write.ts';

/** Bodies up to this size are written and read whole, in blocking calls where allowed, and may use spares. */
export const SMALL_BODY = 64 * 1024;

/** A body written to its temp file, not yet in place. */
export interface TempWrite {
  temp: string;
  /** The temp file's stats: rename and link keep them, so they are the new version's. */
  written: BigIntStats;
  /** Written into a spare's own blocks: renaming it over an old version kept as a spare frees and allocates nothing. */
  quick: boolean;
}

/**
 * The fs driver's temp files: all in the data root (short names, one place to sweep after a crash), named by
 * the driver's random prefix and a count; and the old versions of small files kept as spares, to be written
 * into by later small writes (fs-spares.ts).
 */
export class TempFiles {
  readonly #root: string;
  readonly #blocking: BlockingCalls;
  readonly #spares: SpareFiles | null;
  readonly #prefix = randomBytes(4).toString('hex');
  #count = 0;

  constructor(root: string, blocking: BlockingCalls, spares: SpareFiles | null) {
    this.#root = root;
    this.#blocking = blocking;
    this.#spares = spares;
  }

  /** A new temp name. */
  path(): string {
    return join(this.#root, `${RESERVED_PREFIX}-${this.#prefix}${(this.#count++).toString(36)}`);
  }

  /** A small body in a spare old enough to be written into, else in a new temp file. */
  async writeSmall(bytes: Uint8Array): Promise<TempWrite> {
    const expired: string[] = [];
    const spare = this.#spares?.take(expired) ?? null;
    await Promise.all(expired.map((old) => this.drop(old)));
    if (spare) {
      let written;
      try {
        written = writeSmallIntoSpare(spare, bytes, this.#blocking);
      } catch (error) {
        await this.drop(spare);
        throw error;
      }
      if (written) return { temp: spare, written: written.stats, quick: written.sameBlocks };
      await this.drop(spare);
    }
    const temp = this.path();
    return { temp, written: await writeSmallTempFile(temp, bytes, this.#blocking), quick: false };
  }

  async writeLarge(body: PutBody): Promise<TempWrite> {
    const temp = this.path();
    return { temp, written: await writeTempFile(temp, body), quick: false };
  }

  /**
   * Puts a small write's temp file in place of `target`'s old version (`before`), which becomes a spare unless
   * something else holds it (another name, a large body) or the spares are full.
   */
  async replace(write: TempWrite, target: string, before: BigIntStats | null): Promise<void> {
    const spare = before?.isFile() && before.nlink === 1n && before.size <= SMALL_BODY && this.#spares?.hasRoom ? await this.#linkSpare(target, write.quick) : null;
    try {
      // Neither an inode freed nor blocks to write out: a rename as quick as a stat (fs-spares.ts).
      if (write.quick && spare && this.#blocking.allowed) this.#blocking.run(() => renameSync(write.temp, target));
      else await rename(write.temp, target);
    } catch (error) {
      if (spare) await this.drop(spare);
      throw error;
    }
    if (spare) this.#spares!.add(spare);
  }

  /** After a create-only link or a failed write, the temp name only: a linked file lives on under its new one. */
  async remove(temp: string, small: boolean): Promise<void> {
    try {
      if (small && this.#blocking.allowed) this.#blocking.run(() => unlinkSync(temp));
      else await unlink(temp);
    } catch {
      // Swept at the next start, as after a crash.
    }
  }

  /** A clean stop: the spares go (a start after a crash sweeps them with the temp files). */
  async close(): Promise<void> {
    await Promise.all((this.#spares?.drain() ?? []).map((spare) => this.drop(spare)));
  }

  drop(file: string): Promise<void> {
    return unlink(file).catch(() => undefined);
  }

  /** A second name for the version at `target`, to keep its file as a spare once replaced; null if it cannot have one. */
  async #linkSpare(target: string, quick: boolean): Promise<string | null> {
    // Told apart from temp files for those who look at the data directory.
    const spare = join(this.#root, `${RESERVED_PREFIX}-spare-${this.#prefix}${(this.#count++).toString(36)}`);
    try {
      if (quick && this.#blocking.allowed) this.#blocking.run(() => linkSync(target, spare));
      else await link(target, spare);
      return spare;
    } catch {
      return null;
    }
  }
}

/** A create-only link of a temp file to its name, in a blocking call for a small one where allowed. */
export async function linkInPlace(temp: string, target: string, small: boolean, blocking: BlockingCalls): Promise<void> {
  if (small && blocking.allowed) blocking.run(() => linkSync(temp, target));
  else await link(temp, target);
}
