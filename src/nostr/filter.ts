/**
 * NIP-01 filters: parsed once when a REQ arrives (so a malformed one is refused up front), then matched
 * against stored and live events. Within a filter every condition must hold; a REQ's filters are alternatives.
 */
import { expirationOf, isHex64, type NostrEvent } from './event.ts';

export interface Filter {
  ids?: ReadonlySet<string>;
  authors?: ReadonlySet<string>;
  kinds?: ReadonlySet<number>;
  /** `#x` conditions by tag letter. */
  tags?: ReadonlyMap<string, ReadonlySet<string>>;
  since?: number;
  until?: number;
  limit?: number;
}

export interface FilterLimits {
  /** Values in one list (`ids`, `authors`, `kinds`, `#x`). */
  maxValues: number;
  /** The largest `limit` honoured: larger ones are clamped to it, and a filter without one gets it (NIP-11 `max_limit`). */
  maxLimit: number;
}

const TAG_KEY = /^#[a-zA-Z]$/;

function stringList(value: unknown, name: string, limits: FilterLimits, hex: boolean): Set<string> | string {
  if (!Array.isArray(value) || value.length === 0) return `${name} must be a non-empty array`;
  if (value.length > limits.maxValues) return `${name} has too many values (at most ${limits.maxValues})`;
  for (const item of value) {
    if (typeof item !== 'string') return `${name} must hold strings`;
    if (hex && !isHex64(item)) return `${name} must hold 64-character lowercase hex values`;
  }
  return new Set(value as string[]);
}

/** A filter from its JSON, or the reason it is refused (the text after `invalid: `). */
export function parseFilter(value: unknown, limits: FilterLimits): Filter | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a filter must be a JSON object';
  const filter: { -readonly [K in keyof Filter]: Filter[K] } = {};
  const tags = new Map<string, ReadonlySet<string>>();
  for (const [key, raw] of Object.entries(value)) {
    if (key === 'ids' || key === 'authors') {
      const list = stringList(raw, key, limits, true);
      if (typeof list === 'string') return list;
      filter[key] = list;
    } else if (key === 'kinds') {
      if (!Array.isArray(raw) || raw.length === 0) return 'kinds must be a non-empty array';
      if (raw.length > limits.maxValues) return `kinds has too many values (at most ${limits.maxValues})`;
      if (!raw.every((kind) => Number.isInteger(kind) && kind >= 0 && kind <= 65535)) return 'kinds must hold whole numbers from 0 to 65535';
      filter.kinds = new Set(raw as number[]);
    } else if (key === 'since' || key === 'until' || key === 'limit') {
      if (!Number.isSafeInteger(raw) || (raw as number) < 0) return `${key} must be a whole number`;
      filter[key] = key === 'limit' ? Math.min(raw as number, limits.maxLimit) : (raw as number);
    } else if (TAG_KEY.test(key)) {
      // NIP-01: `#e` and `#p` hold event ids and pubkeys; other letters hold any strings.
      const list = stringList(raw, key, limits, key === '#e' || key === '#p');
      if (typeof list === 'string') return list;
      tags.set(key[1]!, list);
    } else {
      return `unknown filter field ${JSON.stringify(key)}`;
    }
  }
  if (tags.size > 0) filter.tags = tags;
  // Without a limit the initial answer would be every match; the relay sends the newest max_limit.
  filter.limit ??= limits.maxLimit;
  return filter;
}

/** An event's tag values by name, made once per event: matching a `#x` condition then costs the smaller of the two lists, not every tag. */
const tagIndexes = new WeakMap<NostrEvent, ReadonlyMap<string, ReadonlySet<string>>>();

function tagIndexOf(event: NostrEvent): ReadonlyMap<string, ReadonlySet<string>> {
  let index = tagIndexes.get(event);
  if (index) return index;
  const built = new Map<string, Set<string>>();
  for (const [name, value] of event.tags) {
    if (name === undefined || value === undefined) continue;
    let values = built.get(name);
    if (!values) built.set(name, (values = new Set()));
    values.add(value);
  }
  tagIndexes.set(event, (index = built));
  return index;
}

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const value of small) if (large.has(value)) return true;
  return false;
}

/** Whether an event passes every condition of the filter (`limit` is no condition). */
export function matchesFilter(event: NostrEvent, filter: Filter): boolean {
  if (filter.ids && !filter.ids.has(event.id)) return false;
  if (filter.authors && !filter.authors.has(event.pubkey)) return false;
  if (filter.kinds && !filter.kinds.has(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  if (filter.tags) {
    const index = tagIndexOf(event);
    for (const [letter, values] of filter.tags) {
      const present = index.get(letter);
      if (!present || !intersects(values, present)) return false;
    }
  }
  return true;
}

export const matchesAny = (event: NostrEvent, filters: readonly Filter[]) => filters.some((filter) => matchesFilter(event, filter));

/** NIP-40: expired events are neither accepted nor served. */
export const isExpired = (event: NostrEvent, nowSeconds: number) => {
  const expiration = expirationOf(event);
  return expiration !== undefined && expiration <= nowSeconds;
};
