/** `Accept` header parsing with q-values and wildcards (RFC 9110 §12.5.1). */

export interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** Number of parameters besides q; more specific ranges win ties. */
  params: number;
}

const ANYTHING: readonly MediaRange[] = [{ type: '*', subtype: '*', q: 1, params: 0 }];

/** Headers already parsed: clients send the same few over and over. Bounded counts of bounded strings, emptied when full. */
const parsed = new Map<string, readonly MediaRange[]>();
const MAX_REMEMBERED_HEADERS = 64;
const MAX_REMEMBERED_HEADER = 512;

/** The ranges of an `Accept` header (anything when there is none); shared, not to be changed. */
export function parseAccept(header: string | null | undefined): readonly MediaRange[] {
  if (!header) return ANYTHING;
  const known = parsed.get(header);
  if (known) return known;
  const ranges = parseRanges(header);
  if (header.length <= MAX_REMEMBERED_HEADER) {
    if (parsed.size >= MAX_REMEMBERED_HEADERS) parsed.clear();
    parsed.set(header, ranges);
  }
  return ranges;
}

function parseRanges(header: string): readonly MediaRange[] {
  if (!header.trim()) return ANYTHING;
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...parameters] = part.split(';').map((s) => s.trim());
    if (!range) continue;
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    let q = 1;
    let params = 0;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      } else if (name) params += 1;
    }
    ranges.push({ type: range.slice(0, slash).toLowerCase(), subtype: range.slice(slash + 1).toLowerCase(), q, params });
  }
  return ranges;
}

function specificity(range: MediaRange): number {
  if (range.type === '*') return 0;
  if (range.subtype === '*') return 1;
  return 2 + range.params;
}

/** The q-value the client gives a concrete media type: the most specific matching range decides. */
export function qualityOf(ranges: readonly MediaRange[], mediaType: string): number {
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash);
  const subtype = mediaType.slice(slash + 1);
  let best: MediaRange | undefined;
  for (const range of ranges) {
    const matches = (range.type === '*' || range.type === type) && (range.subtype === '*' || range.subtype === subtype);
    if (matches && (!best || specificity(range) > specificity(best))) best = range;
  }
  return best?.q ?? 0;
}

/**
 * Picks the best of the offered media types (in server preference order) for the client's ranges;
 * ties go to the earlier offer. Returns null when nothing is acceptable.
 */
export function negotiate(ranges: readonly MediaRange[], offers: readonly string[]): string | null {
  let best: string | null = null;
  let bestQ = 0;
  for (const offer of offers) {
    const q = qualityOf(ranges, offer);
    if (q > bestQ) {
      best = offer;
      bestQ = q;
    }
  }
  return best;
}
