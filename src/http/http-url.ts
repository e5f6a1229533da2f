/** An http(s) URL parsed from `value`, or null for anything else (other schemes, non-strings, unparsable text). */
export function httpUrlOf(value: unknown): URL | null {
  if (typeof value !== 'string' || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
}
