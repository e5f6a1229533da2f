/**
 * Changes on disk under the fs driver's root, made by svc or anything else (git, an editor), as storage
 * paths, for `--live-reload`. What the driver cached of a changed file is dropped first, so a page
 * reloaded at once shows the new content.
 */
import { watch, type FSWatcher } from 'node:fs';
import { RESERVED_PREFIX, RESERVED_SUFFIX, parentOf } from '../../src/storage/paths.ts';
import type { FsDriver } from '../../storage-drivers/fs.ts';

export interface StorageWatcher {
  watch(changed: (paths: readonly string[]) => void): void;
  close(): void;
}

/** The storage path a changed file stands for: a sidecar stands for its resource; temp files and `.git/` for nothing. */
function storagePathOf(file: string): string | null {
  const segments = file.split(/[\\/]/).filter(Boolean);
  if (segments.length === 0 || segments.includes('.git')) return null;
  const last = segments[segments.length - 1]!;
  if (last.startsWith(RESERVED_PREFIX)) return null;
  if (last.endsWith(RESERVED_SUFFIX)) segments[segments.length - 1] = last.slice(0, -RESERVED_SUFFIX.length);
  return '/' + segments.join('/');
}

export function watchStorageFiles(storage: FsDriver, log: (line: string) => void): StorageWatcher {
  const listeners: ((paths: readonly string[]) => void)[] = [];
  let watcher: FSWatcher | undefined;
  const start = () => {
    watcher = watch(storage.root, { recursive: true }, (_event, file) => {
      const path = file ? storagePathOf(file.toString()) : null;
      if (!path) return;
      storage.forgetCached(parentOf(path) ?? '/');
      for (const listener of listeners) listener([path]);
    });
    watcher.on('error', (error) => log(`live reload: watching ${storage.root} failed: ${error.message}`));
  };
  return {
    watch(changed) {
      listeners.push(changed);
      if (!watcher) start();
    },
    close: () => watcher?.close(),
  };
}
