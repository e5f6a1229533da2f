/**
 * The origin of a Request's URL, without parsing it: `Request.url` is serialized (scheme and host in lower
 * case, no default port, no credentials), so the origin is everything before the path's first slash.
 */
export function requestOrigin(url: string): string {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path === -1 ? url : url.slice(0, path);
}

/**
 * The path of a Request's URL as `new URL(url).pathname` gives it, without parsing: a serialized URL's path is
 * what lies between its origin and `?`. Null where parsing could change it, so the caller parses: a `#` or a
 * `/.` (a dot segment, or a name such as `.acl`), which a URL the runtime did not serialize may hold (the Node
 * adapter hands on a request target of plain characters as it came).
 */
export function requestPath(url: string): string | null {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return null;
  const query = url.indexOf('?', start);
  const path = query === -1 ? url.slice(start) : url.slice(start, query);
  return path.includes('#') || path.includes('/.') ? null : path;
}
