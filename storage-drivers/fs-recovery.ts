/** What a server does to its data directory at startup: clear what a crash left, and note whether it stopped cleanly. */
import { lstat, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESERVED_PREFIX, RESERVED_SUFFIX } from '../src/storage/paths.ts';
import { LAYOUT_FILE } from './fs-layout.ts';

/** Present while a server has the directory open; found at startup, it means the last one did not stop cleanly. */
const RUNNING_MARKER = `${RESERVED_PREFIX}-running`;
/** With other servers on the directory, a temp file younger than this may be one of their writes in flight. */
const SHARED_TEMP_GRACE_MS = 3600_000;
/** A sidecar temp file of earlier versions, which wrote it beside the sidecar. */
const OLD_SIDECAR_TEMP = new RegExp(`\\${RESERVED_SUFFIX}\\.[0-9a-f]{8}\\${RESERVED_SUFFIX}$`);

/**
 * Removes what a crash leaves behind: temp files (all in the root, so a clean start lists one directory),
 * and after an unclean stop also sidecars whose file is gone. Then marks the directory as open; `marker` is
 * the file to remove on a clean stop.
 */
export async function recoverDataDirectory(root: string, shared: boolean): Promise<{ uncleanStop: boolean; marker: string }> {
  const marker = join(root, RUNNING_MARKER);
  // Beside other running servers, the marker is theirs as much as ours: its presence says nothing of a crash.
  const uncleanStop =
    !shared &&
    (await lstat(marker).then(
      () => true,
      () => false,
    ));
  const sweepBefore = shared ? Date.now() - SHARED_TEMP_GRACE_MS : Infinity;
  for (const name of await readdir(root)) {
    if (!name.startsWith(RESERVED_PREFIX) || name === RUNNING_MARKER) continue;
    const path = join(root, name);
    const stats = await lstat(path).catch(() => null);
    if (stats && stats.mtimeMs < sweepBefore) await unlink(path).catch(() => undefined);
  }
  if (uncleanStop) await removeStrandedSidecars(root);
  await writeFile(marker, '');
  return { uncleanStop, marker };
}

async function removeStrandedSidecars(directory: string): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await removeStrandedSidecars(path);
    else if (entry.name !== LAYOUT_FILE && entry.name.endsWith(RESERVED_SUFFIX) && (OLD_SIDECAR_TEMP.test(entry.name) || !files.has(entry.name.slice(0, -RESERVED_SUFFIX.length)))) {
      await unlink(path).catch(() => undefined);
    }
  }
}
