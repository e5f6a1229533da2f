/**
 * The relay's state shared by all connections: the stored events, the connections listening for new ones,
 * and what publishing an authentic event does (NIP-01 kinds, NIP-09 deletion, NIP-40 expiration).
 */
import { SharedPacer } from '../rdf/cooperative.ts';
import { addressOf, AUTH_KIND, DELETION_KIND, isEphemeral, supersedes, type NostrEvent } from './event.ts';
import { isExpired, type Filter } from './filter.ts';
import { DEFAULT_RELAY_TOTALS, type RelayTotals } from './limits.ts';
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
  /** Sends the event to the matching subscriptions; returns the work done (filters matched, plus SEND_WORK a message). */
  deliver(event: NostrEvent): number;
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
  /** What all connections together may hold; default DEFAULT_RELAY_TOTALS. */
  totals?: RelayTotals;
}

const accepted = (message = ''): OkAnswer => ({ accepted: true, message });
const refused = (message: string): OkAnswer => ({ accepted: false, message });

export class Relay {
  readonly store: EventStore;
  readonly totals: RelayTotals;
  /** The work of all connections (signature checks, matching, sending) between pauses of the event loop. */
  readonly work: SharedPacer;
  readonly #listeners = new Set<RelayListener>();
  readonly #deps: RelayDeps;
  /** Events accepted and not yet delivered to every listener, in the order accepted. */
  readonly #pending: NostrEvent[] = [];
  #delivering = false;
  /** Publishers waiting for the pending deliveries to drop below the bound. */
  #waiting: (() => void)[] = [];
  #filters = 0;
  #filterBytes = 0;

  constructor(deps: RelayDeps) {
    this.#deps = deps;
    this.totals = deps.totals ?? DEFAULT_RELAY_TOTALS;
    this.work = new SharedPacer(this.totals.workPerTurn);
    this.store = new EventStore(deps.maxEvents);
  }

  /**
   * A place for a subscription of `filters` filters read from a REQ of `bytes` characters, or null when the
   * connections together hold the relay's totals; the function returned gives the place back.
   */
  reserve(filters: number, bytes: number): (() => void) | null {
    if (this.#filters + filters > this.totals.maxFilters || this.#filterBytes + bytes > this.totals.maxFilterBytes) return null;
    this.#filters += filters;
    this.#filterBytes += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#filters -= filters;
      this.#filterBytes -= bytes;
    };
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
      await this.#room();
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
    await this.#room();

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

  /** Queues the event for every listener; delivery starts at once and pauses between turns of `workPerTurn`. */
  #broadcast(event: NostrEvent): void {
    this.#pending.push(event);
    if (!this.#delivering) void this.#deliverPending();
  }

  async #deliverPending(): Promise<void> {
    this.#delivering = true;
    try {
      while (this.#pending.length > 0) {
        const event = this.#pending[0]!;
        // Listeners that join during a pause hear only of later events, as if they had joined after this one.
        for (const listener of [...this.#listeners]) {
          const room = this.work.take(0);
          if (room) await room;
          if (!this.#listeners.has(listener)) continue;
          try {
            this.work.spend(1 + listener.deliver(event));
          } catch (error) {
            this.#deps.log(`nostr: a delivery failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        this.#pending.shift();
        if (this.#pending.length <= this.totals.maxPendingDeliveries) for (const wake of this.#waiting.splice(0)) wake();
      }
    } finally {
      this.#delivering = false;
    }
  }

  /** Waits while more events than `maxPendingDeliveries` wait to be delivered, so publishers cannot outrun delivery. */
  async #room(): Promise<void> {
    while (this.#pending.length > this.totals.maxPendingDeliveries) await new Promise<void>((resolve) => this.#waiting.push(resolve));
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
