/**
 * The origin of a Request's URL, without parsing it: `Request.url` is serialized (scheme and host in lower
 * case, no default port, no credentials), so the origin is everything before the path's first slash.
 */
export function requestOrigin(url: string): string {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path === -1 ? url : url.slice(0, path);
}
