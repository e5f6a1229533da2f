import type { Change } from '../ldp/context.ts';
import { isAclPath } from '../ldp/auxiliary.ts';
import { parentOf } from '../storage/paths.ts';

/** Activity Streams types of the Solid Notifications Protocol. */
export type Activity = 'Create' | 'Update' | 'Delete' | 'Add' | 'Remove';

/** One thing that happened to a topic (a storage path): to the topic itself, or to a member of it. */
export interface TopicEvent {
  /** Storage path subscribers listen on. */
  topic: string;
  activity: Activity;
  /** Storage path of what changed: the topic itself, or the member added, removed or changed. */
  object: string;
  /** Milliseconds since the epoch. */
  published: number;
}

/** Looks up the current ETag of a path, once per publish however many subscribers ask. */
export type StateLookup = (path: string) => Promise<string | undefined>;

/** What every subscriber of one publish may ask, each looked up once for all of them. */
export interface Lookups {
  stateOf: StateLookup;
  /** The ACL version (AccessControl.version) at delivery, for subscribers that check Read again; undefined without WAC. */
  accessVersion(): Promise<number | undefined>;
}

/** Anything that wants events about a topic: a solid-0.1 socket, a WebSocketChannel2023 channel, ... */
export interface Subscriber {
  /** All events of one write for one topic, in order. Must not throw; may be async (the hub does not wait). */
  deliver(events: readonly TopicEvent[], lookups: Lookups): void | Promise<void>;
}

/** Subscribers delivered to before the hub yields to the event loop, so fan-out never starves requests. */
const DELIVERIES_PER_TURN = 200;

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The events one successful write causes. The resource itself gets Create/Update/Delete; its direct parent
 * container gets Add/Remove (membership) or Update (a member changed), so solid-0.1 subscribers of the
 * container hear about every write inside it. Further ancestors hear nothing: their membership did not
 * change. ACL documents are auxiliary, not members, so they notify only their own subscribers.
 */
export function eventsFor(changes: readonly Change[], published: number): TopicEvent[] {
  const events: TopicEvent[] = [];
  for (const change of changes) {
    const own: Activity = change.kind === 'create' ? 'Create' : change.kind === 'delete' ? 'Delete' : 'Update';
    events.push({ topic: change.path, activity: own, object: change.path, published });
    const parent = parentOf(change.path);
    if (parent === null || isAclPath(change.path)) continue;
    const member: Activity = change.kind === 'create' ? 'Add' : change.kind === 'delete' ? 'Remove' : 'Update';
    events.push({ topic: parent, activity: member, object: change.path, published });
  }
  return events;
}

/** Transport-agnostic publish/subscribe on storage paths. */
export class NotificationHub {
  readonly #topics = new Map<string, Set<Subscriber>>();
  readonly #stateOf: StateLookup;
  readonly #accessVersion: (() => Promise<number>) | undefined;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;

  constructor(options: { stateOf: StateLookup; accessVersion?: () => Promise<number>; now?: () => number; onError?: (error: unknown) => void }) {
    this.#stateOf = options.stateOf;
    this.#accessVersion = options.accessVersion;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
  }

  subscribe(topic: string, subscriber: Subscriber): void {
    let set = this.#topics.get(topic);
    if (!set) this.#topics.set(topic, (set = new Set()));
    set.add(subscriber);
  }

  unsubscribe(topic: string, subscriber: Subscriber): void {
    const set = this.#topics.get(topic);
    if (!set) return;
    set.delete(subscriber);
    if (set.size === 0) this.#topics.delete(topic);
  }

  /** Number of subscribers of a topic (for tests and the benchmark). */
  subscriberCount(topic: string): number {
    return this.#topics.get(topic)?.size ?? 0;
  }

  /**
   * Announces what a successful write changed. Returns at once: delivery starts on a later turn of the
   * event loop, after the response is on its way, and nobody awaits it.
   */
  publish(changes: readonly Change[]): void {
    if (changes.length === 0 || this.#topics.size === 0) return;
    const events = eventsFor(changes, this.#now());
    setTimeout(() => void this.#deliver(events).catch(this.#onError), 0);
  }

  async #deliver(events: readonly TopicEvent[]): Promise<void> {
    const byTopic = new Map<string, TopicEvent[]>();
    for (const event of events) {
      if (!this.#topics.has(event.topic)) continue;
      const list = byTopic.get(event.topic);
      if (list) list.push(event);
      else byTopic.set(event.topic, [event]);
    }
    const states = new Map<string, Promise<string | undefined>>();
    const stateOf: StateLookup = (path) => {
      let state = states.get(path);
      if (!state) states.set(path, (state = this.#stateOf(path).catch(() => undefined)));
      return state;
    };
    let version: Promise<number | undefined> | undefined;
    const lookups: Lookups = { stateOf, accessVersion: () => (version ??= this.#accessVersion ? this.#accessVersion() : Promise.resolve(undefined)) };
    let delivered = 0;
    for (const [topic, topicEvents] of byTopic) {
      // A copy: subscribers may unsubscribe (or close) while we iterate.
      for (const subscriber of [...(this.#topics.get(topic) ?? [])]) {
        try {
          const pending = subscriber.deliver(topicEvents, lookups);
          if (pending) pending.catch(this.#onError);
        } catch (error) {
          this.#onError(error);
        }
        if (++delivered % DELIVERIES_PER_TURN === 0) await yieldToEventLoop();
      }
    }
  }
}
