/** Entity-tag preconditions (RFC 9110 §13). ETags are strong and compared as opaque strings. */

export function formatEtag(etag: string): string {
  return `"${etag}"`;
}

/** `"a", W/"b"` -> ['a', 'b'], `*` -> '*'. */
export function parseEtagList(header: string | null): string[] | '*' | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (trimmed === '*') return '*';
  const tags: string[] = [];
  for (const match of trimmed.matchAll(/(?:W\/)?"([^"]*)"/g)) tags.push(match[1]!);
  return tags;
}

/** Does `If-Match` hold for the current ETag (null when nothing exists)? */
export function ifMatchHolds(header: string | null, current: string | null): boolean {
  const list = parseEtagList(header);
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
