/** Entity-tag and date preconditions (RFC 9110 §13). ETags are strong and compared as opaque strings. */

export function formatEtag(etag: string): string {
  return `"${etag}"`;
}

/**
 * The ETag of one representation of a resource served in several media types (RFC 9110 §8.8.1: a strong
 * tag names one representation): the stored form keeps the resource's own, another gets its media type after
 * a colon, which no storage driver's ETag holds.
 */
export function representationEtag(etag: string, type: string): string {
  let suffix = suffixes.get(type);
  if (suffix === undefined) suffixes.set(type, (suffix = `:${type.replace(/[^A-Za-z0-9.+-]/g, '-')}`));
  return etag + suffix;
}

/** Suffixes by media type: the types served are the server's few offers, so the map stays small. */
const suffixes = new Map<string, string>();

/** The resource's ETag in a tag that may name one of its representations (see representationEtag). */
export function resourceEtagOf(tag: string): string {
  const colon = tag.indexOf(':');
  return colon === -1 ? tag : tag.slice(0, colon);
}

/**
 * `"a", W/"b"` -> ['a', 'b'], `*` -> '*'. With `strong` (If-Match, If-Range: RFC 9110's strong comparison)
 * weak tags are left out, since a weak tag never matches strongly.
 */
export function parseEtagList(header: string | null, strong = false): string[] | '*' | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (trimmed === '*') return '*';
  const tags: string[] = [];
  for (const match of trimmed.matchAll(/(W\/)?"([^"]*)"/g)) if (!(strong && match[1])) tags.push(match[2]!);
  return tags;
}

/** Does `If-Match` hold for the current ETag (null when nothing exists)? */
export function ifMatchHolds(header: string | null, current: string | null): boolean {
  const list = parseEtagList(header, true);
  if (list === null) return true;
  if (current === null) return false;
  return list === '*' || list.includes(current);
}

/** Does `If-None-Match` hold, i.e. may the request proceed? */
export function ifNoneMatchHolds(header: string | null, current: string | null): boolean {
  const list = parseEtagList(header);
  if (list === null || current === null) return true;
  return list !== '*' && !list.includes(current);
}

/** An HTTP-date's time in whole seconds, or null when the text is not a date. */
function secondsOf(date: string): number | null {
  const time = Date.parse(date);
  return Number.isNaN(time) ? null : Math.floor(time / 1000);
}

/**
 * Does `If-Unmodified-Since` hold for a resource last modified at `modifiedMs` (null: it does not exist)?
 * Ignored, as RFC 9110 §13.1.4 says, when If-Match is present, when the resource has no date, or when the
 * value is no date.
 */
export function ifUnmodifiedSinceHolds(request: Request, modifiedMs: number | null): boolean {
  const header = request.headers.get('if-unmodified-since');
  if (header === null || modifiedMs === null || request.headers.has('if-match')) return true;
  const since = secondsOf(header);
  return since === null || Math.floor(modifiedMs / 1000) <= since;
}

/**
 * Does `If-Modified-Since` say the client's copy is current (a 304), for a representation last modified at
 * `modifiedMs`? A value that is no date says nothing.
 */
export function unmodifiedSince(header: string | null, modifiedMs: number): boolean {
  const since = header === null ? null : secondsOf(header);
  return since !== null && Math.floor(modifiedMs / 1000) <= since;
}

/**
 * Does `If-Range` let a Range request be answered in part (RFC 9110 §13.1.5)? An entity tag must match
 * strongly; a date must be the representation's Last-Modified exactly. Otherwise the whole representation
 * is sent, so a client resuming a download never joins parts of two versions.
 */
export function ifRangeHolds(header: string | null, etag: string, modifiedMs: number): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    const tags = parseEtagList(value, true);
    return Array.isArray(tags) && tags.length === 1 && tags[0] === etag;
  }
  return secondsOf(value) === Math.floor(modifiedMs / 1000);
}
