/**
 * A container's ETag names its listing, not only its directory: see listingEtag.
 */
import type { ResourceMeta, StorageDriver } from '../storage/types.ts';
import { readListing, type Listing } from './listing.ts';

/** Digests by members array: a driver that caches hands out the same array while the container is unchanged. */
const digests = new WeakMap<readonly ResourceMeta[], string>();

/**
 * The ETag of a container's listing: the container's own ETag and a digest of its members' paths and ETags.
 * On disk a member changed in place (by another program, or twice within one tick of a coarse file-system
 * clock) leaves the directory's timestamps as they were, so the directory's ETag alone could name two
 * listings, and a client that revalidates would keep the old one (a 304).
 */
export function listingEtag(listing: Listing): string {
  let digest = digests.get(listing.members);
  if (digest === undefined) digests.set(listing.members, (digest = membersDigest(listing.members)));
  return `${listing.container.etag}.${digest}`;
}

/** The container's metadata with its listing's ETag, and the listing it was read from. */
export async function listedContainer(storage: StorageDriver, container: ResourceMeta): Promise<{ meta: ResourceMeta; listing: Listing }> {
  const listing = await readListing(storage, container);
  return { meta: { ...container, etag: listingEtag(listing) }, listing };
}

/**
 * Two 32-bit lanes (FNV-1a and a multiply-xorshift) over every member's path and ETag, 64 bits together:
 * enough that two versions of one container do not share a digest by chance. Not a defence against a
 * member's writer choosing names to collide: the worst that buys is a stale listing for a revalidating client.
 */
function membersDigest(members: readonly ResourceMeta[]): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // A separator no path or ETag holds, so "ab" + "c" and "a" + "bc" differ.
    a = Math.imul(a ^ 10, 0x01000193);
    b = Math.imul(b ^ 10, 0x5bd1e995);
  };
  for (const member of members) {
    mix(member.path);
    mix(member.etag);
  }
  return (a >>> 0).toString(36).padStart(7, '0') + (b >>> 0).toString(36).padStart(7, '0');
}

const EMPTY_DIGEST = membersDigest([]);

/** What If-Match and If-None-Match of a write compare with: for a container, its listing's ETag (read only then). */
export async function comparedMeta(request: Request, storage: StorageDriver, meta: ResourceMeta | null): Promise<ResourceMeta | null> {
  if (!meta?.isContainer || !(request.headers.has('if-match') || request.headers.has('if-none-match'))) return meta;
  return (await listedContainer(storage, meta)).meta;
}

/** A written resource's metadata as its answer names it: a container just made with its listing's ETag. */
export function createdMeta(meta: ResourceMeta): ResourceMeta {
  return meta.isContainer ? { ...meta, etag: `${meta.etag}.${EMPTY_DIGEST}` } : meta;
}
