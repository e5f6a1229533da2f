/**
 * A container's validators (ETag, modification time) name its listing, not only its directory: see listingMeta.
 */
import type { ResourceMeta, StorageDriver } from '../storage/types.ts';
import { readListing, type Listing } from './listing.ts';

/** What a listing's validators add to its container's, by members array (the fs driver hands out the same array while a container is unchanged). */
const validators = new WeakMap<readonly ResourceMeta[], { digest: string; newest: number }>();

/**
 * A container's metadata as its listing's validators: the ETag is the container's own ETag and a digest of
 * its members' paths and ETags, the modification time the latest of the container's and its members'. On disk
 * the container's come from its directory, and a member edited in place (by another program, or twice within
 * one tick of a coarse file-system clock) leaves the directory as it was, while the listing shows the member's
 * new size and time: with the directory's alone a client that revalidates would be told 304 and keep the old one.
 */
function listingMeta(listing: Listing): ResourceMeta {
  let known = validators.get(listing.members);
  if (known === undefined) validators.set(listing.members, (known = validatorsOf(listing.members)));
  const { container } = listing;
  return { ...container, etag: `${container.etag}.${known.digest}`, modified: Math.max(container.modified, known.newest) };
}

/** The container's metadata as its listing's validators (listingMeta), and the listing it was read from. */
export async function listedContainer(storage: StorageDriver, container: ResourceMeta): Promise<{ meta: ResourceMeta; listing: Listing }> {
  const listing = await readListing(storage, container);
  return { meta: listingMeta(listing), listing };
}

/**
 * Two 32-bit lanes (FNV-1a and a multiply-xorshift) over every member's path and ETag, 64 bits together:
 * enough that two versions of one container do not share a digest by chance. Not a defence against a
 * member's writer choosing names to collide: the worst that buys is a stale listing for a revalidating client.
 */
function validatorsOf(members: readonly ResourceMeta[]): { digest: string; newest: number } {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  let newest = 0;
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
    if (member.modified > newest) newest = member.modified;
  }
  return { digest: (a >>> 0).toString(36).padStart(7, '0') + (b >>> 0).toString(36).padStart(7, '0'), newest };
}

const EMPTY_DIGEST = validatorsOf([]).digest;

/** The headers writePreconditions (put.ts) reads. */
const WRITE_PRECONDITIONS = ['if-match', 'if-none-match', 'if-unmodified-since'];

/** What the preconditions of a write compare with: for a container, its listing's validators (read only then). */
export async function comparedMeta(request: Request, storage: StorageDriver, meta: ResourceMeta | null): Promise<ResourceMeta | null> {
  if (!meta?.isContainer || !WRITE_PRECONDITIONS.some((name) => request.headers.has(name))) return meta;
  return (await listedContainer(storage, meta)).meta;
}

/** A written resource's metadata as its answer names it: a container just made with its listing's ETag. */
export function createdMeta(meta: ResourceMeta): ResourceMeta {
  return meta.isContainer ? { ...meta, etag: `${meta.etag}.${EMPTY_DIGEST}` } : meta;
}
