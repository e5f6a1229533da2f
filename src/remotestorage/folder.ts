import { toBase64Url } from '../http/base64url.ts';
import { isHiddenFromListing } from '../ldp/auxiliary.ts';
import { nameOf } from '../storage/paths.ts';
import { isStorageError, type ResourceMeta, type StorageDriver } from '../storage/types.ts';

/** The `@context` every folder description carries (draft-dejong-remotestorage-22 §4). */
export const FOLDER_CONTEXT = 'http://remotestorage.io/spec/folder-description';

export interface DocumentDescription {
  ETag: string;
  'Content-Type': string;
  'Content-Length': number;
  'Last-Modified': string;
}

export interface FolderDescription {
  /** Version of the folder: changes whenever any document beneath it changes, is added or removed. */
  etag: string;
  /** Documents by name and non-empty folders by `name/`. */
  items: Record<string, DocumentDescription | { ETag: string }>;
}

const encoder = new TextEncoder();

/** Members of a container; none when nothing (or a document) stands at the path, as for any empty folder. */
async function membersOf(storage: StorageDriver, container: string): Promise<readonly ResourceMeta[]> {
  try {
    if (storage.children) return await storage.children(container);
    const members: ResourceMeta[] = [];
    for await (const member of storage.list(container)) members.push(member);
    return members;
  } catch (error) {
    if (isStorageError(error, 'NotFound') || isStorageError(error, 'Conflict')) return [];
    throw error;
  }
}

/**
 * Describes a folder. Its ETag hashes the names and ETags of its items, and a sub-folder's ETag is its own
 * description's, so a write anywhere beneath changes every folder above it up to the root. A folder holding
 * no document anywhere beneath it is empty: its parent does not list it. ACL documents and the server's
 * own files are no items.
 */
export function describeFolder(storage: StorageDriver, container: string): Promise<FolderDescription> {
  return folderOf(storage, container, true);
}

/**
 * The folder's description; `withDetails` false gives its documents' ETags only (all a parent needs of a
 * sub-folder: the ETag hashes no more), so the walk beneath the folder asked for reads no document's type.
 */
async function folderOf(storage: StorageDriver, container: string, withDetails: boolean): Promise<FolderDescription> {
  const members = [...(await membersOf(storage, container))].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const items: FolderDescription['items'] = {};
  for (const member of members) {
    if (isHiddenFromListing(member.path)) continue;
    if (member.isContainer) {
      const folder = await folderOf(storage, member.path, false);
      if (Object.keys(folder.items).length > 0) items[nameOf(member.path)] = { ETag: folder.etag };
      continue;
    }
    items[nameOf(member.path)] = withDetails
      ? {
          ETag: member.etag,
          // Listings of the fs driver leave the type out (it may sit in a sidecar): ask for it then.
          'Content-Type': member.contentType ?? (await storage.head(member.path))?.contentType ?? 'application/octet-stream',
          'Content-Length': member.size,
          'Last-Modified': new Date(member.modified).toUTCString(),
        }
      : { ETag: member.etag };
  }
  const versions = Object.entries(items).map(([name, item]) => [name, item.ETag]);
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(JSON.stringify(versions)));
  return { etag: toBase64Url(new Uint8Array(digest)), items };
}
