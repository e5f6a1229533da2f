import type { Config } from '../config/options.ts';
import { storagePathFromUrlPath } from '../storage/paths.ts';
import type { StorageDriver } from '../storage/types.ts';
import { findAccount } from '../webfinger/webfinger.ts';

/** URL path prefix of every user's storage root: `/storage/<user>`. */
export const STORAGE_PREFIX = '/storage/';
/** The container inside a pod that holds its remoteStorage tree, so WAC, quotas and notifications apply to it. */
export const POD_CONTAINER = 'remotestorage/';

/** What a `/storage/<user>/<path>` URL names. */
export interface RemoteStorageTarget {
  user: string;
  /** Storage path of the tree's root folder in the pod: `/alice/remotestorage/`. */
  root: string;
  /** Decoded path relative to the storage root, starting with `/`: `/photos/a.jpg`, `/` for the root folder. */
  relative: string;
  /** Storage path of the target in the pod. */
  path: string;
  isFolder: boolean;
}

const TARGET = /^\/storage\/([^/]+)(\/.*)$/;

/**
 * The target of a request URL, or null when the URL names no user of this server (the request then falls
 * through to the LDP route). Invalid item names are a PathError (400).
 */
export async function remoteStorageTargetOf(url: URL, storage: StorageDriver, config: Config): Promise<RemoteStorageTarget | null> {
  const match = TARGET.exec(url.pathname);
  if (!match) return null;
  let user: string;
  try {
    user = decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
  const account = await findAccount(storage, config, user, url.origin);
  if (!account) return null;
  const relative = storagePathFromUrlPath(match[2]!);
  const root = account.podPath + POD_CONTAINER;
  return { user, root, relative, path: root + relative.slice(1), isFolder: relative.endsWith('/') };
}
