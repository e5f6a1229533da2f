/** An http(s) URL parsed from `value`, or null for anything else (other schemes, non-strings, unparsable text). */
export function httpUrlOf(value: unknown): URL | null {
  if (typeof value !== 'string' || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
}

/**
 * Whether `value` can be a WebID: an http(s) URL written out (`scheme://`) with no user name or password in
 * it. A WebID is a public name; one with credentials is no one's, whatever the profile it leads to says.
 */
export function isWebIdUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return false;
  const url = httpUrlOf(value);
  return url !== null && url.username === '' && url.password === '';
}
