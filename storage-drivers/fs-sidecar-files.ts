/**
 * The sidecar files of the fs driver on disk: `<name>.svc-meta` beside each file whose name cannot tell its
 * type (see fs-sidecar.ts for what they say and in which order writes change them).
 *
 * Most sidecars say only `{"contentType": T}`, and a file takes at least one block of the disk (4 KB) however
 * small it is, so 1,000 such members would take twice the space of their bodies. Such a sidecar is a hard
 * link to one shared, never-changed file per type under `types.svc-meta/` in the root: a directory entry,
 * no block of its own. It is read like any other sidecar and replaced (renamed over) or removed like one.
 * A sidecar that also names a previous body, or any link that fails (a file system without hard links, the
 * link-count limit of one shared file), is a file of its own as before. A shared file that no sidecar links
 * to any more is removed (`release`), so types no resource has take no room: what the pods' content types
 * keep on disk stays bounded by their resources (issue 30).
 */
import { createHash } from 'node:crypto';
import { link, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RESERVED_SUFFIX } from '../src/storage/paths.ts';
import { parseSidecar, type SidecarRecord, type SidecarStep } from './fs-sidecar.ts';
import { writeSidecarFile } from './fs-write.ts';

/** Under the root; the suffix keeps it out of listings, HTTP, git pushes and the quota. */
export const SHARED_SIDECARS = `types${RESERVED_SUFFIX}`;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

const isMissing = (error: unknown) => errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR';

export class SidecarFiles {
  readonly #root: string;
  readonly #tempPath: () => string;
  /** The shared file of each record text, once it is known to exist. */
  readonly #shared = new Map<string, Promise<string>>();

  constructor(root: string, tempPath: () => string) {
    this.#root = root;
    this.#tempPath = tempPath;
  }

  pathOf(path: string): string {
    return join(this.#root, path) + RESERVED_SUFFIX;
  }

  /** The sidecar on disk; null when there is none. */
  async read(path: string): Promise<SidecarRecord | null> {
    try {
      return parseSidecar(await readFile(this.pathOf(path), 'utf8'), path + RESERVED_SUFFIX);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async apply(path: string, step: SidecarStep): Promise<void> {
    if (step.action === 'write') await this.write(path, step.record);
    else if (step.action === 'remove') await this.remove(path);
  }

  /** `remove` in a blocking call: for the usual case of a free path, whose sidecar is not there either. */
  removeSync(path: string): void {
    try {
      unlinkSync(this.pathOf(path));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async remove(path: string): Promise<void> {
    await unlink(this.pathOf(path)).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  /**
   * Once a new body is in place (after `apply` of `step`): the sidecar that speaks for it. One that only still
   * spoke for the old body goes when the new body has its name's own type (`named`), one that kept the old
   * body's type beside the new one is cut to the new type, and the old record's shared file is released when
   * no longer used. `before`: the sidecar the old body had.
   */
  async settle(path: string, step: SidecarStep, before: SidecarRecord | null, named: boolean): Promise<SidecarRecord | null> {
    let sidecar = step.action === 'write' ? step.record : step.action === 'remove' ? null : before;
    if (sidecar && named) {
      await this.remove(path);
      sidecar = null;
    } else if (sidecar?.previous) {
      // A link to the shared file of the new type alone.
      sidecar = { contentType: sidecar.contentType };
      await this.write(path, sidecar);
    }
    if (before && before.contentType !== sidecar?.contentType) await this.release(before);
    return sidecar;
  }

  /** The resource at `path` was deleted: its sidecar goes, and `record`'s shared file once nothing links to it. */
  async drop(path: string, record: SidecarRecord | null): Promise<void> {
    await this.remove(path).catch(() => undefined);
    await this.release(record);
  }

  /**
   * After a sidecar was removed or replaced: when it only named a type, that type's shared file goes too once
   * nothing links to it. A write that took the file from the map meanwhile finds it gone and writes a sidecar
   * of its own instead (see `write`). Never fails: a shared file left behind only takes room.
   */
  async release(record: SidecarRecord | null): Promise<void> {
    if (!record || record.previous) return;
    const text = JSON.stringify(record);
    const file = this.sharedPathOf(text);
    try {
      if ((await lstat(file)).nlink !== 1) return;
      this.#shared.delete(text);
      await unlink(file);
    } catch {
      // Gone already, or not ours to remove.
    }
  }

  private sharedPathOf(text: string): string {
    return join(this.#root, SHARED_SIDECARS, createHash('sha256').update(text).digest('hex'));
  }

  /** Replaces the sidecar atomically: a rename over it, of a link to the shared file or of a file of its own. */
  private async write(path: string, record: SidecarRecord): Promise<void> {
    const text = JSON.stringify(record);
    if (!record.previous) {
      const temp = this.#tempPath();
      try {
        await link(await this.sharedFile(text), temp);
        await rename(temp, this.pathOf(path));
        return;
      } catch {
        await unlink(temp).catch(() => undefined);
        // A shared file removed by hand is made anew by the next write that needs it.
        this.#shared.delete(text);
      }
    }
    await writeSidecarFile(this.pathOf(path), this.#tempPath(), record);
  }

  /** The shared file holding `text`, written whole (temp file, then link into place) before anything links to it. */
  private sharedFile(text: string): Promise<string> {
    let shared = this.#shared.get(text);
    if (!shared) {
      shared = (async () => {
        const directory = join(this.#root, SHARED_SIDECARS);
        const file = this.sharedPathOf(text);
        await mkdir(directory, { recursive: true });
        const temp = this.#tempPath();
        try {
          await writeFile(temp, text, { flag: 'wx' });
          await link(temp, file).catch(async (error: unknown) => {
            if (errorCode(error) !== 'EEXIST') throw error;
            // Made by an earlier run; one changed by hand is not linked to.
            if ((await readFile(file, 'utf8')) !== text) throw new Error(`${file} does not hold ${text}`);
          });
        } finally {
          await unlink(temp).catch(() => undefined);
        }
        return file;
      })();
      this.#shared.set(text, shared);
      shared.catch(() => this.#shared.delete(text));
    }
    return shared;
  }
}
