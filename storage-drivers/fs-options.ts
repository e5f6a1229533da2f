/** How a data directory is opened by the fs driver (storage-drivers/fs.ts): its options and their defaults. */
import type { SpareOptions } from './fs-spares.ts';

/** The default of --cache-size: commands and tests that open a data directory get the server's caches. */
export const DEFAULT_CACHE_BYTES = 24 * 1024 * 1024;
/** How long a cached body is served without looking at the file again; see FsOptions. */
export const REVALIDATE_AFTER_MS = 1000;

export interface FsOptions {
  /**
   * A cached body (and its metadata) is served for this long before the file's stats are checked again:
   * how long a file edited outside svc may show its previous version. Writes through svc are seen at once.
   * Dot-files (ACLs, quota records, `.server/`), which svc's own commands edit on disk, are always checked.
   */
  revalidateAfterMs?: number;
  /**
   * Open as the server of this directory: remove the temp files a crash left, and keep a marker file while
   * open, so the next start knows whether this one stopped cleanly (`uncleanStop`). Commands that open the
   * directory beside a running server (`svc quota`, `svc invite`) leave both alone.
   */
  recover?: boolean;
  /**
   * Other servers have the directory open too (`--redis-url`): recovery removes only temp files older than
   * an hour (younger ones may be their writes in flight), and a clean stop leaves the shared marker to them.
   */
  shared?: boolean;
  /** Where the upgrade of an earlier version's directory (see fs-layout.ts) says what it did. */
  log?(line: string): void;
  /** What the driver's caches (small bodies, types, listings) may hold in all, in bytes: its shares of --cache-size. */
  cacheBytes?: number;
  /**
   * Small writes and metadata reads use blocking calls while the disk answers them quickly (see
   * fs-blocking.ts); false keeps every call asynchronous.
   */
  blockingCalls?: boolean;
  /**
   * Whether the directory ignores case or normalises names (macOS and Windows disks by default), so each
   * existing name must be asked for as it is spelled there (see fs-spellings.ts). Found out by a probe file
   * when not given.
   */
  foldsNames?: boolean;
  /**
   * Old versions of small files kept as later writes' temp files (see fs-spares.ts). On by default for the
   * directory's server (`recover`); off for commands beside it, which would leave theirs behind.
   */
  spares?: SpareOptions | false;
}
