/**
 * One client's WebSocket to the relay: NIP-01 messages in (`EVENT`, `REQ`, `CLOSE`, and NIP-42 `AUTH`), `OK`,
 * `EVENT`, `EOSE`, `CLOSED`, `NOTICE` and an `AUTH` challenge out. Whatever a client sends, only its own connection hears about it: malformed
 * input gets a `NOTICE` (or `CLOSED`/`OK false`), never an exception that would reach other clients.
 */
import { sendOrDrop, type SocketHandlers, type SocketLike } from '../notifications/socket.ts';
import { utf8LongerThan } from '../sockets/messages.ts';
import { authProblem, newChallenge, PRIVATE_KINDS, readableBy } from './auth.ts';
import { canonicalEvent, shapeProblem, type NostrEvent } from './event.ts';
import { matchesAny, parseFilter, type Filter } from './filter.ts';
import { SEND_BYTES_PER_WORK, SEND_WORK, TokenBucket, VERIFY_WORK, type RelayLimits } from './limits.ts';
import type { Relay } from './relay.ts';
import { integrityProblem } from './verify.ts';

const encoder = new TextEncoder();

/** EVENT and AUTH messages of one connection being handled at once; more are answered `rate-limited:` at once. */
export const MAX_MESSAGES_IN_FLIGHT = 64;

/** Each event's JSON, written once however many subscriptions it goes to. */
const eventTexts = new WeakMap<NostrEvent, string>();

function eventText(event: NostrEvent): string {
  let text = eventTexts.get(event);
  if (text === undefined) eventTexts.set(event, (text = JSON.stringify(event)));
  return text;
}

interface Subscription {
  readonly filters: readonly Filter[];
  /** The filters as received, for `remember`. */
  readonly raw: unknown[];
  /** Bytes of its REQ (their sum over the connection is at most `limits.maxSubscriptionBytes`). */
  readonly bytes: number;
  /** Gives the subscription's place in the relay's totals back. */
  readonly release: () => void;
}

export interface ConnectionDeps {
  relay: Relay;
  /** The URL the client connected to: AUTH events must name its host. */
  url: URL;
  limits: RelayLimits;
  /** Milliseconds since the epoch. */
  now(): number;
  log(line: string): void;
}

/**
 * What a connection needs to carry on where the runtime let its process go (`SocketLike.remember`): its
 * challenge, the keys it proved, and each open subscription's filters as the client sent them.
 */
export interface ConnectionState {
  challenge: string;
  authenticated: string[];
  subscriptions: Array<[id: string, filters: unknown[]]>;
}

/**
 * Opens a connection, or carries one on from `resumed` (then it does not send its AUTH challenge again).
 * Where the socket can `remember`, each change of the state is handed to it.
 */
export function openRelayConnection(socket: SocketLike, { relay, url, limits, now, log }: ConnectionDeps, resumed?: ConnectionState): SocketHandlers {
  const subscriptions = new Map<string, Subscription>();
  /** The open subscriptions' REQ bytes, summed. */
  let heldBytes = 0;
  const challenge = resumed?.challenge ?? newChallenge();
  /** Keys this connection has proven (NIP-42); a client may authenticate as several. */
  const authenticated = new Set<string>(resumed?.authenticated);
  const remember = socket.remember ? () => socket.remember!({ challenge, authenticated: [...authenticated], subscriptions: [...subscriptions].map(([id, { raw }]) => [id, raw]) } satisfies ConnectionState) : () => {};
  const bucket = limits.eventsPerSecond > 0 ? new TokenBucket(limits.eventsPerSecond, now) : null;
  let inFlight = 0;
  const send = (message: unknown[]) => sendOrDrop(socket, JSON.stringify(message));
  /** Sends an EVENT message; returns the work it took (see SEND_WORK). */
  const sendEvent = (id: string, event: NostrEvent): number => {
    const text = `["EVENT",${JSON.stringify(id)},${eventText(event)}]`;
    sendOrDrop(socket, text);
    return SEND_WORK + text.length / SEND_BYTES_PER_WORK;
  };
  const notice = (text: string) => send(['NOTICE', text]);
  /** Ends a subscription, giving its place in the relay's totals back; whether it was open. */
  const unsubscribe = (id: string): boolean => {
    const open = subscriptions.get(id);
    if (!open) return false;
    open.release();
    subscriptions.delete(id);
    heldBytes -= open.bytes;
    return true;
  };

  const stopListening = relay.listen({
    deliver(event) {
      if (!readableBy(event, authenticated)) return 0;
      let work = 0;
      for (const [id, { filters }] of subscriptions) {
        work += filters.length;
        if (!matchesAny(event, filters)) continue;
        work += sendEvent(id, event);
      }
      return work;
    },
  });

  /** The authentic event an EVENT or AUTH message carries, after the checks both share, or why it is refused. */
  async function authenticEvent(value: unknown): Promise<NostrEvent | string> {
    if (bucket && !bucket.take()) return `rate-limited: at most ${limits.eventsPerSecond} events per second on one connection`;
    const shape = shapeProblem(value, limits.maxEventTags);
    if (shape) return `invalid: ${shape}`;
    const event = canonicalEvent(value as NostrEvent);
    if (event.created_at > relay.nowSeconds() + limits.maxFutureSeconds) return `invalid: created_at is more than ${limits.maxFutureSeconds} seconds in the future`;
    // Many events arrive in one read: their checks are spread over turns of the event loop.
    const room = relay.work.take(VERIFY_WORK);
    if (room) await room;
    const integrity = integrityProblem(event);
    return integrity ? `invalid: ${integrity}` : event;
  }

  /** Answers an EVENT or AUTH with `OK`, or with `NOTICE` when the message holds no id to answer to. */
  function replier(message: unknown[]): (accepted: boolean, text: string) => void {
    const value = message[1];
    const id = typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;
    return (accepted, text) => (id === null ? notice(text) : send(['OK', id, accepted, text]));
  }

  async function onEvent(message: unknown[]): Promise<void> {
    if (message.length !== 2) return notice('invalid: EVENT takes exactly one event: ["EVENT", <event>]');
    const reply = replier(message);
    const event = await authenticEvent(message[1]);
    if (typeof event === 'string') return reply(false, event);
    const answer = await relay.publish(event);
    reply(answer.accepted, answer.message);
  }

  async function onAuth(message: unknown[]): Promise<void> {
    if (message.length !== 2) return notice('invalid: AUTH takes exactly one signed event: ["AUTH", <event>]');
    const reply = replier(message);
    const event = await authenticEvent(message[1]);
    if (typeof event === 'string') return reply(false, event);
    const problem = authProblem(event, challenge, url, relay.nowSeconds());
    if (problem) return reply(false, `invalid: ${problem}`);
    authenticated.add(event.pubkey);
    remember();
    reply(true, '');
  }

  const hold = (id: string, filters: Filter[], raw: unknown[], release: () => void, bytes: number) => {
    subscriptions.set(id, { filters, raw, bytes, release });
    heldBytes += bytes;
  };

  function onReq(message: unknown[], length: number, bytes: number): void {
    const id = message[1];
    if (typeof id !== 'string' || id.length === 0) return notice('invalid: REQ needs a subscription id: ["REQ", <id>, <filter>, ...]');
    // A refused REQ also ends an open subscription of that id: the client takes CLOSED to mean so.
    const close = (reason: string) => {
      if (unsubscribe(id)) remember();
      send(['CLOSED', id, reason]);
    };
    if (id.length > limits.maxSubidLength) return close(`invalid: subscription ids are at most ${limits.maxSubidLength} characters`);
    const raw = message.slice(2);
    if (raw.length === 0) return close('invalid: REQ needs at least one filter');
    if (raw.length > limits.maxFilters) return close(`invalid: at most ${limits.maxFilters} filters in one REQ`);
    const filters: Filter[] = [];
    for (const value of raw) {
      const filter = parseFilter(value, { maxValues: limits.maxFilterValues, maxLimit: limits.maxLimit });
      if (typeof filter === 'string') return close(`invalid: ${filter}`);
      filters.push(filter);
    }
    if (authenticated.size === 0 && filters.some((filter) => filter.kinds && [...filter.kinds].some((kind) => PRIVATE_KINDS.has(kind)))) {
      return close('auth-required: direct messages (kinds 4 and 1059) are served only to their author and recipients; authenticate first (NIP-42)');
    }
    if (!subscriptions.has(id) && subscriptions.size >= limits.maxSubscriptions) {
      return close(`rate-limited: at most ${limits.maxSubscriptions} open subscriptions on one connection; CLOSE one first`);
    }
    if (heldBytes - (subscriptions.get(id)?.bytes ?? 0) + bytes > limits.maxSubscriptionBytes) {
      return close(`rate-limited: the open subscriptions of one connection hold at most ${limits.maxSubscriptionBytes} bytes of REQ messages; CLOSE one or send fewer filter values`);
    }
    // A REQ with an id already open replaces that subscription (NIP-01).
    const replaced = unsubscribe(id);
    const release = relay.reserve(filters.length, length);
    if (!release) {
      if (replaced) remember();
      return close('rate-limited: the relay holds as many subscriptions as it can for all its clients; try again later');
    }
    hold(id, filters, raw, release, bytes);
    remember();
    for (const event of relay.query(filters)) if (readableBy(event, authenticated)) sendEvent(id, event);
    send(['EOSE', id]);
  }

  function onClose(message: unknown[]): void {
    if (message.length !== 2 || typeof message[1] !== 'string') return notice('invalid: CLOSE takes a subscription id: ["CLOSE", <id>]');
    if (unsubscribe(message[1])) remember();
  }

  /** Handles an EVENT or AUTH, at most MAX_MESSAGES_IN_FLIGHT at once (each waits for the relay, which may hold publishers back). */
  async function inTurn(message: unknown[], handle: (message: unknown[]) => void | Promise<void>): Promise<void> {
    if (inFlight >= MAX_MESSAGES_IN_FLIGHT) return replier(message)(false, `rate-limited: at most ${MAX_MESSAGES_IN_FLIGHT} events in flight on one connection; wait for their OK`);
    inFlight++;
    try {
      await handle(message);
    } finally {
      inFlight--;
    }
  }

  /**
   * Opens the subscriptions the connection held again, each taking its place in the relay's totals as its
   * REQ did; one that cannot be (the totals are full, or the limits changed) is CLOSED, so the client knows.
   */
  function resume(state: ConnectionState): void {
    for (const [id, raw] of state.subscriptions) {
      const parsed = raw.map((value) => parseFilter(value, { maxValues: limits.maxFilterValues, maxLimit: limits.maxLimit }));
      const filters = parsed.filter((filter): filter is Filter => typeof filter !== 'string');
      const text = JSON.stringify(['REQ', id, ...raw]);
      const bytes = encoder.encode(text).byteLength;
      const fits = filters.length === parsed.length && heldBytes + bytes <= limits.maxSubscriptionBytes;
      const release = fits ? relay.reserve(filters.length, text.length) : null;
      if (!release) {
        send(['CLOSED', id, 'error: the subscription could not be carried on after the relay restarted; send the REQ again']);
        continue;
      }
      hold(id, filters, raw, release, bytes);
    }
    if (subscriptions.size < state.subscriptions.length) remember();
  }

  function onMessage(text: string | null): void | Promise<void> {
    if (text === null) return notice('invalid: binary messages are not understood; send JSON text');
    if (utf8LongerThan(text, limits.maxMessageLength)) return notice(`invalid: messages are at most ${limits.maxMessageLength} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return notice('invalid: the message is not JSON');
    }
    if (!Array.isArray(message) || typeof message[0] !== 'string') return notice('invalid: a message is a JSON array that starts with its type, such as ["REQ", ...]');
    switch (message[0]) {
      case 'EVENT':
        return inTurn(message, onEvent);
      case 'REQ':
        return onReq(message, text.length, encoder.encode(text).byteLength);
      case 'CLOSE':
        return onClose(message);
      case 'AUTH':
        return inTurn(message, onAuth);
      default:
        return notice(`invalid: unknown message type ${JSON.stringify(message[0].slice(0, 20))}; this relay understands EVENT, REQ, CLOSE and AUTH`);
    }
  }

  if (resumed) resume(resumed);
  else {
    remember();
    send(['AUTH', challenge]);
  }

  const failed = (error: unknown) => {
    log(`nostr: a message failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    notice('error: the relay could not handle this message');
  };

  return {
    message(text) {
      try {
        void Promise.resolve(onMessage(text)).catch(failed);
      } catch (error) {
        failed(error);
      }
    },
    closed() {
      for (const id of [...subscriptions.keys()]) unsubscribe(id);
      stopListening();
    },
    subscribed: () => subscriptions.size > 0,
  };
}
