/** Single byte-range requests (RFC 9110 §14). Multi-range requests are answered with the whole body. */

export type RangeRequest = { start: number; end?: number } | { suffix: number };

/** Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`; returns null when the header is absent or not one range. */
export function parseRange(header: string | null): RangeRequest | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') return { suffix: Number(match[2]) };
  const start = Number(match[1]);
  if (match[2] === '') return { start };
  const end = Number(match[2]);
  return end < start ? null : { start, end };
}

/** Resolves a range against a size; null when unsatisfiable. */
export function resolveRange(range: RangeRequest, size: number): { start: number; end: number } | null {
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) return null;
    return { start: Math.max(size - range.suffix, 0), end: size - 1 };
  }
  if (range.start >= size) return null;
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}
