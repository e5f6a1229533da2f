/**
 * The relay's events in memory, bounded: at most `maxEvents`, the earliest received evicted first. Indexed
 * by id, author, kind, single-letter tag value and replaceable address, so a REQ naming any of those reads
 * only the events that can match instead of all of them.
 */
import { addressOf, type NostrEvent } from './event.ts';
import { isExpired, matchesFilter, type Filter } from './filter.ts';

function addTo<K>(index: Map<K, Set<NostrEvent>>, key: K, event: NostrEvent): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(event);
}

function removeFrom<K>(index: Map<K, Set<NostrEvent>>, key: K, event: NostrEvent): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(event);
  if (set.size === 0) index.delete(key);
}

/** Single-letter tags with a value are indexed (NIP-01: relays are expected to index those). */
function indexedTagKeys(event: NostrEvent): Set<string> {
  const keys = new Set<string>();
  for (const tag of event.tags) if (tag[0]!.length === 1 && tag[1] !== undefined) keys.add(`${tag[0]}:${tag[1]}`);
  return keys;
}

/** Newest first; on equal `created_at`, the lower id first. */
export function newestFirst(a: NostrEvent, b: NostrEvent): number {
  return b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class EventStore {
  /** In the order received, so the first entry is the one to evict. */
  readonly #byId = new Map<string, NostrEvent>();
  readonly #byAuthor = new Map<string, Set<NostrEvent>>();
  readonly #byKind = new Map<number, Set<NostrEvent>>();
  readonly #byTag = new Map<string, Set<NostrEvent>>();
  readonly #byAddress = new Map<string, NostrEvent>();
  readonly maxEvents: number;

  constructor(maxEvents: number) {
    this.maxEvents = maxEvents;
  }

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): NostrEvent | undefined {
    return this.#byId.get(id);
  }

  /** The stored event at a replaceable address (`kind:pubkey:d`). */
  atAddress(address: string): NostrEvent | undefined {
    return this.#byAddress.get(address);
  }

  /** Stores an event (the caller has settled replacement) and returns the events evicted to stay in bounds. */
  add(event: NostrEvent): NostrEvent[] {
    if (this.#byId.has(event.id)) return [];
    this.#byId.set(event.id, event);
    addTo(this.#byAuthor, event.pubkey, event);
    addTo(this.#byKind, event.kind, event);
    for (const key of indexedTagKeys(event)) addTo(this.#byTag, key, event);
    const address = addressOf(event);
    if (address !== undefined) this.#byAddress.set(address, event);
    const evicted: NostrEvent[] = [];
    while (this.#byId.size > this.maxEvents) evicted.push(this.remove(this.#byId.keys().next().value!)!);
    return evicted;
  }

  remove(id: string): NostrEvent | undefined {
    const event = this.#byId.get(id);
    if (!event) return undefined;
    this.#byId.delete(id);
    removeFrom(this.#byAuthor, event.pubkey, event);
    removeFrom(this.#byKind, event.kind, event);
    for (const key of indexedTagKeys(event)) removeFrom(this.#byTag, key, event);
    const address = addressOf(event);
    if (address !== undefined && this.#byAddress.get(address) === event) this.#byAddress.delete(address);
    return event;
  }

  /** Events matching any filter (each filter's `limit` keeps its newest), newest first, without the expired. */
  query(filters: readonly Filter[], nowSeconds: number): NostrEvent[] {
    const found = new Map<string, NostrEvent>();
    for (const filter of filters) {
      if (filter.limit === 0) continue;
      const matches: NostrEvent[] = [];
      for (const event of this.#candidates(filter)) {
        if (matchesFilter(event, filter) && !isExpired(event, nowSeconds)) matches.push(event);
      }
      matches.sort(newestFirst);
      for (const event of filter.limit === undefined ? matches : matches.slice(0, filter.limit)) found.set(event.id, event);
    }
    return [...found.values()].sort(newestFirst);
  }

  /** The smallest set of stored events that holds every match of the filter: one index read, or all events. */
  #candidates(filter: Filter): Iterable<NostrEvent> {
    if (filter.ids) return [...filter.ids].flatMap((id) => this.#byId.get(id) ?? []);
    const options: Array<Array<Set<NostrEvent> | undefined>> = [];
    if (filter.authors) options.push([...filter.authors].map((author) => this.#byAuthor.get(author)));
    if (filter.kinds) options.push([...filter.kinds].map((kind) => this.#byKind.get(kind)));
    for (const [letter, values] of filter.tags ?? []) options.push([...values].map((value) => this.#byTag.get(`${letter}:${value}`)));
    if (options.length === 0) return this.#byId.values();
    const sizeOf = (sets: Array<Set<NostrEvent> | undefined>) => sets.reduce((sum, set) => sum + (set?.size ?? 0), 0);
    const smallest = options.reduce((best, sets) => (sizeOf(sets) < sizeOf(best) ? sets : best));
    // One event can sit in several of the chosen sets (two tag values it has); yield it once.
    const union = new Set<NostrEvent>();
    for (const set of smallest) for (const event of set ?? []) union.add(event);
    return union;
  }
}
