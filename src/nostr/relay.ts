/**
 * The relay's state shared by all connections: the stored events, the connections listening for new ones,
 * and what publishing an authentic event does (NIP-01 kinds, NIP-09 deletion, NIP-40 expiration).
 */
import { addressOf, AUTH_KIND, DELETION_KIND, isEphemeral, supersedes, type NostrEvent } from './event.ts';
import { isExpired, type Filter } from './filter.ts';
import { EventStore } from './store.ts';

/** Where stored events outlive the process (with --nostr-persist); `load` gives them in the order received. */
export interface EventArchive {
  load(): Promise<NostrEvent[]>;
  /** Throws, with the reason in its message, when the event cannot be kept (the pod's quota has no room for it). */
  admit?(event: NostrEvent): Promise<void>;
  save(event: NostrEvent): Promise<void>;
  remove(id: string): Promise<void>;
}

/** A connection's view of new events: it checks its own subscriptions. */
export interface RelayListener {
  deliver(event: NostrEvent): void;
}

/** The answer to an EVENT: NIP-01 `OK` with a machine-readable prefix in `message` when not plainly accepted. */
export interface OkAnswer {
  accepted: boolean;
  message: string;
}

export interface RelayDeps {
  maxEvents: number;
  /** Milliseconds since the epoch. */
  now(): number;
  archive?: EventArchive;
  log(line: string): void;
  /** Tells the relays of other instances (`--redis-url`) of an event accepted here. */
  announce?(event: NostrEvent): void;
}

const accepted = (message = ''): OkAnswer => ({ accepted: true, message });
const refused = (message: string): OkAnswer => ({ accepted: false, message });

export class Relay {
  readonly store: EventStore;
  readonly #listeners = new Set<RelayListener>();
  readonly #deps: RelayDeps;

  constructor(deps: RelayDeps) {
    this.#deps = deps;
    this.store = new EventStore(deps.maxEvents);
  }

  nowSeconds(): number {
    return Math.floor(this.#deps.now() / 1000);
  }

  /** Reads the archived events back, keeping the newest `maxEvents` received (a lowered limit evicts the rest). */
  async init(): Promise<void> {
    const archive = this.#deps.archive;
    if (!archive) return;
    const events = await archive.load();
    for (const event of events) for (const evicted of this.store.add(event)) await archive.remove(evicted.id);
    this.#deps.log(`nostr: ${this.store.size} stored events read back`);
  }

  listen(listener: RelayListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  query(filters: readonly Filter[]): NostrEvent[] {
    return this.store.query(filters, this.nowSeconds());
  }

  /**
   * Publishes an event whose shape, id and signature have been checked. `fromPeer`: another instance
   * accepted (and archived) it; this relay only keeps it in memory and passes it to its listeners.
   */
  async publish(event: NostrEvent, fromPeer = false): Promise<OkAnswer> {
    if (event.kind === AUTH_KIND) return refused('invalid: kind 22242 events authenticate a connection (NIP-42) and are never published');
    if (isExpired(event, this.nowSeconds())) return refused('invalid: this event has expired (NIP-40)');
    if (isEphemeral(event.kind)) {
      this.#broadcast(event);
      if (!fromPeer) this.#deps.announce?.(event);
      return accepted();
    }
    const known = this.#known(event);
    if (known) return known;
    const admit = fromPeer ? undefined : this.#deps.archive?.admit;
    if (admit) {
      // Refused before anything changes, so a full pod neither stores nor relays it.
      try {
        await admit(event);
      } catch (error) {
        return refused(`error: ${error instanceof Error ? error.message : String(error)}`);
      }
      const knownMeanwhile = this.#known(event);
      if (knownMeanwhile) return knownMeanwhile;
    }

    const removed: NostrEvent[] = [];
    const address = addressOf(event);
    const current = address === undefined ? undefined : this.store.atAddress(address);
    if (current) {
      if (!supersedes(event, current)) return refused('duplicate: a newer version of this replaceable event is stored');
      removed.push(this.store.remove(current.id)!);
    }
    if (event.kind === DELETION_KIND) removed.push(...this.#applyDeletion(event));
    removed.push(...this.store.add(event));
    this.#broadcast(event);
    if (fromPeer) return accepted();
    this.#deps.announce?.(event);

    const archive = this.#deps.archive;
    if (!archive) return accepted();
    try {
      const stored = this.store.get(event.id) !== undefined;
      await Promise.all([stored ? archive.save(event) : undefined, ...removed.map((old) => archive.remove(old.id))]);
      return accepted();
    } catch (error) {
      this.#deps.log(`nostr: could not archive event ${event.id}: ${error instanceof Error ? error.message : String(error)}`);
      return refused('error: the event could not be stored');
    }
  }

  /** The answer to an event already stored, or deleted by its author; undefined for one that is new. */
  #known(event: NostrEvent): OkAnswer | undefined {
    if (this.store.get(event.id)) return accepted('duplicate: already have this event');
    if (this.#deletedByAuthor(event)) return refused('blocked: its author has asked for this event to be deleted (NIP-09)');
    return undefined;
  }

  #broadcast(event: NostrEvent): void {
    for (const listener of this.#listeners) listener.deliver(event);
  }

  /** Whether a stored deletion request by the same author names this event (by id, or by address and not older). */
  #deletedByAuthor(event: NostrEvent): boolean {
    const byAuthor = { kinds: new Set([DELETION_KIND]), authors: new Set([event.pubkey]) };
    if (this.store.query([{ ...byAuthor, tags: new Map([['e', new Set([event.id])]]) }], 0).length > 0) return true;
    const address = addressOf(event);
    if (address === undefined) return false;
    const requests = this.store.query([{ ...byAuthor, tags: new Map([['a', new Set([address])]]) }], 0);
    return requests.some((request) => request.created_at >= event.created_at);
  }

  /** NIP-09: removes the events a deletion request names that have its author; deletion requests themselves stay. */
  #applyDeletion(request: NostrEvent): NostrEvent[] {
    const removed: NostrEvent[] = [];
    const take = (target: NostrEvent | undefined) => {
      if (target && target.pubkey === request.pubkey && target.kind !== DELETION_KIND) removed.push(this.store.remove(target.id)!);
    };
    for (const [name, value] of request.tags) {
      if (value === undefined) continue;
      if (name === 'e') take(this.store.get(value));
      if (name === 'a') {
        const target = this.store.atAddress(value);
        if (target && target.created_at <= request.created_at) take(target);
      }
    }
    return removed;
  }
}
