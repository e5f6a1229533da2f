/**
 * WebhookChannel2023: a client POSTs a subscription with a `sendTo` URL, and the server POSTs each
 * notification there, signed (see webhook-sender.ts), through the guarded outbound fetch.
 *
 * Subscriptions outlive restarts: each is a record under /.server/notifications/webhooks/, read at startup.
 * The instance that made a write sends its notifications (so with --redis-url each goes out once): every
 * instance knows every subscription, told of new and ended ones through the shared state and reading the
 * records again after a while (a message missed while Redis was away).
 */
import type { FanOut } from '../cluster/fan-out.ts';
import { HttpProblem } from '../http/problem.ts';
import type { OutboundFetch } from '../platform.ts';
import { podRootOfPath } from '../quota/record.ts';
import type { StorageDriver } from '../storage/types.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import { authenticateChallenge } from '../wac/web-access-control.ts';
import { isReported, NOTIFICATION_CONTEXT, notificationFor } from './channel2023.ts';
import { httpOrigin, WEBHOOK_PATH, WEBHOOK_TYPE } from './discovery.ts';
import type { NotificationHub, Subscriber } from './hub.ts';
import { ReadCheck, requesterOf } from './read-check.ts';
import { endAtOf, readRequest, requireType, topicOf, typeNames } from './subscribe.ts';
import { CONTAINER, isRecord, isWebhookId, recordPath, sendToOf, type WebhookMessage, type WebhookRecord } from './webhook-record.ts';
import { SENDER_PATH, type WebhookSender } from './webhook-sender.ts';

const ACCEPTED_TYPES = typeNames(WEBHOOK_TYPE);
export const MAX_WEBHOOKS_PER_AGENT = 100;
export const MAX_WEBHOOKS_PER_POD = 1000;
/** A subscription ends at its `endAt`, and never later than this after it was made (as CSS's default). */
export const MAX_WEBHOOK_LIFETIME_MS = 14 * 24 * 3600 * 1000;
/** Notifications waiting per subscription; beyond it the oldest waiting one is dropped. */
export const MAX_QUEUED_NOTIFICATIONS = 50;
/** Waits before the second, third and fourth attempt to send one notification. */
export const RETRY_DELAYS_MS: readonly number[] = [1000, 5000, 25_000];
/** A subscription whose receiver failed this many notifications in a row (every attempt) is dropped. */
export const MAX_FAILED_NOTIFICATIONS = 3;
/** POSTs in flight at once, over all subscriptions. */
export const MAX_CONCURRENT_POSTS = 16;
/** How long an instance trusts its list of subscriptions before reading the records again (only with other instances). */
export const REFRESH_INTERVAL_MS = 60_000;
const MAX_RECORD_BYTES = 16 * 1024;

interface Entry {
  record: WebhookRecord;
  subscriber: Subscriber;
  read: ReadCheck;
  /** Notification bodies waiting to be sent, oldest first. */
  queue: string[];
  sending: boolean;
  /** Notifications in a row that no attempt delivered. */
  failures: number;
  /** When it was added here, counted in additions: a reading of the records that began before does not forget it. */
  added: number;
}

export interface WebhooksDeps {
  storage: StorageDriver;
  access: AccessControl;
  /** Hears only this instance's writes: the instance that writes sends. */
  hub: NotificationHub;
  sender: WebhookSender;
  fetch: OutboundFetch;
  /** Subscriptions in all (--notifications-webhooks). */
  limit: number;
  /** --allow-private-fetch: `sendTo` may be http: and name loopback or private addresses. */
  allowPrivate: boolean;
  now(): number;
  log(line: string): void;
  pathOf(url: URL): string;
  urlOf(path: string, origin: string): string;
  /** Delays between attempts; tests shorten them. */
  retryDelaysMs?: readonly number[];
}

/** A small counting semaphore: at most `size` holders at once, the others wait in order. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];
  constructor(size: number) {
    this.#free = size;
  }
  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

export class Webhooks {
  readonly #deps: WebhooksDeps;
  readonly #entries = new Map<string, Entry>();
  readonly #slots = new Slots(MAX_CONCURRENT_POSTS);
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #fanOut: FanOut<WebhookMessage> | null = null;
  #loadedAt = 0;
  #additions = 0;
  #refreshing: Promise<void> | null = null;
  #closed = false;

  constructor(deps: WebhooksDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** With other instances: where subscriptions made or ended here are announced. */
  shareWith(fanOut: FanOut<WebhookMessage>): void {
    this.#fanOut = fanOut;
  }

  /** Reads every stored subscription (startup); expired ones are deleted. */
  async init(): Promise<void> {
    await this.#load();
  }

  /** Stops retries and waits; nothing more is sent. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** What another instance announced. */
  heard(message: WebhookMessage): void {
    if ('add' in message) {
      if (isRecord(message.add) && !this.#entries.has(message.add.id)) this.#add(message.add);
    } else this.#forget(message.remove);
  }

  /** A write made through this instance: with other instances, the list is read again when it has grown old. */
  wrote(): void {
    if (!this.#fanOut || this.#deps.now() - this.#loadedAt < REFRESH_INTERVAL_MS) return;
    this.#refreshing ??= this.#load()
      .catch((error: unknown) => this.#deps.log(`webhooks: reading the subscriptions failed: ${(error as Error).message}`))
      .finally(() => (this.#refreshing = null));
  }

  /** `POST` on the subscription service. */
  async subscribe(request: Request, caller: Caller): Promise<Response> {
    if (caller.webId === null) {
      throw new HttpProblem(401, 'Webhook subscriptions need an authenticated agent.', { type: 'unauthenticated', headers: { 'WWW-Authenticate': authenticateChallenge(caller) } });
    }
    const body = await readRequest(request);
    requireType(body, ACCEPTED_TYPES, WEBHOOK_TYPE);
    const topic = topicOf(body, request);
    const path = this.#deps.pathOf(topic);
    await this.#deps.access.require(caller, [{ path, anyOf: ['read'] }]);
    const sendTo = sendToOf(body.sendTo, this.#deps.allowPrivate);
    const now = this.#deps.now();
    const endAt = Math.min(endAtOf(body.endAt, now) ?? Infinity, now + MAX_WEBHOOK_LIFETIME_MS);
    this.#checkRoom(caller.webId, path);
    const record: WebhookRecord = { id: crypto.randomUUID(), topic: path, topicUrl: topic.href, origin: httpOrigin(new URL(request.url)), sendTo, endAt, requester: requesterOf(caller) };
    await this.#deps.storage.put(recordPath(record.id), JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    this.#add(record);
    this.#fanOut?.send({ add: record });
    return Response.json(this.#description(record), { headers: { 'Content-Type': 'application/ld+json' } });
  }

  /** `GET` on a channel's id: its description, for the agent that made it. */
  describe(id: string, caller: Caller): Response {
    return Response.json(this.#description(this.#owned(id, caller).record), { headers: { 'Content-Type': 'application/ld+json' } });
  }

  /** `DELETE` on a channel's id, by the agent that made it: nothing more is sent. */
  async unsubscribe(id: string, caller: Caller): Promise<Response> {
    await this.#remove(this.#owned(id, caller), null);
    return new Response(null, { status: 204 });
  }

  #owned(id: string, caller: Caller): Entry {
    const entry = isWebhookId(id) ? this.#entries.get(id) : undefined;
    if (!entry) throw new HttpProblem(404, 'There is no such webhook subscription, or it has ended.', { type: 'unknown-channel' });
    if (caller.webId === null) {
      throw new HttpProblem(401, 'Authenticate as the agent that made this subscription.', { type: 'unauthenticated', headers: { 'WWW-Authenticate': authenticateChallenge(caller) } });
    }
    if (caller.webId !== entry.record.requester.webId) throw new HttpProblem(403, 'Only the agent that made a webhook subscription may see or end it.', { type: 'forbidden' });
    return entry;
  }

  #checkRoom(agent: string, path: string): void {
    if (this.#entries.size >= this.#deps.limit) {
      throw new HttpProblem(503, 'The server holds the most webhook subscriptions it takes; try again later.', { type: 'too-many-channels', headers: { 'Retry-After': '3600' } });
    }
    const pod = podRootOfPath(path) ?? '/';
    let byAgent = 0;
    let inPod = 0;
    for (const { record } of this.#entries.values()) {
      if (record.requester.webId === agent) byAgent++;
      if ((podRootOfPath(record.topic) ?? '/') === pod) inPod++;
    }
    if (byAgent >= MAX_WEBHOOKS_PER_AGENT) {
      throw new HttpProblem(429, `You hold the most webhook subscriptions allowed (${MAX_WEBHOOKS_PER_AGENT}); end some first.`, { type: 'too-many-channels', headers: { 'Retry-After': '3600' } });
    }
    if (inPod >= MAX_WEBHOOKS_PER_POD) {
      throw new HttpProblem(429, `This pod has the most webhook subscriptions allowed (${MAX_WEBHOOKS_PER_POD}).`, { type: 'too-many-channels', headers: { 'Retry-After': '3600' } });
    }
  }

  #description(record: WebhookRecord): Record<string, unknown> {
    return {
      '@context': [NOTIFICATION_CONTEXT],
      id: `${record.origin}${WEBHOOK_PATH}${record.id}`,
      type: WEBHOOK_TYPE,
      topic: record.topicUrl,
      sendTo: record.sendTo,
      sender: record.origin + SENDER_PATH,
      endAt: new Date(record.endAt).toISOString(),
    };
  }

  #add(record: WebhookRecord): void {
    const entry: Entry = {
      record,
      read: new ReadCheck(this.#deps.access, record.requester, record.topic, this.#deps.now),
      queue: [],
      sending: false,
      failures: 0,
      added: ++this.#additions,
      subscriber: {
        deliver: async (events, { stateOf, accessVersion }) => {
          if (this.#entries.get(record.id) !== entry || !events.some(isReported)) return;
          if (this.#deps.now() >= record.endAt) return this.#remove(entry, 'it reached its endAt');
          if (!(await entry.read.allowed(await accessVersion()))) return this.#remove(entry, 'its subscriber may no longer read the topic');
          for (const event of events) {
            if (!isReported(event)) continue;
            const notification = await notificationFor(event, (path) => this.#deps.urlOf(path, record.origin), stateOf);
            if (entry.queue.length >= MAX_QUEUED_NOTIFICATIONS) entry.queue.shift();
            entry.queue.push(JSON.stringify(notification));
          }
          void this.#drain(entry);
        },
      },
    };
    this.#entries.set(record.id, entry);
    this.#deps.hub.subscribe(record.topic, entry.subscriber);
  }

  /** Forgets a subscription here only (another instance ended it, or its record is gone). */
  #forget(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    this.#entries.delete(id);
    this.#deps.hub.unsubscribe(entry.record.topic, entry.subscriber);
    entry.queue.length = 0;
    return entry;
  }

  /** Ends a subscription everywhere: its record is deleted and the other instances are told. */
  async #remove(entry: Entry, reason: string | null): Promise<void> {
    if (this.#forget(entry.record.id) !== entry) return;
    if (reason) this.#deps.log(`webhooks: subscription ${entry.record.id} (to ${entry.record.sendTo}) ended: ${reason}`);
    this.#fanOut?.send({ remove: entry.record.id });
    await this.#deps.storage.delete(recordPath(entry.record.id));
  }

  /** Sends what waits, in order, one POST at a time per subscription. */
  async #drain(entry: Entry): Promise<void> {
    if (entry.sending) return;
    entry.sending = true;
    try {
      while (entry.queue.length > 0 && !this.#closed && this.#entries.get(entry.record.id) === entry) {
        const outcome = await this.#send(entry, entry.queue[0]!);
        entry.queue.shift();
        if (outcome === 'gone') return await this.#remove(entry, 'its receiver answered 410 Gone');
        if (outcome === 'delivered') entry.failures = 0;
        else if (++entry.failures >= MAX_FAILED_NOTIFICATIONS) return await this.#remove(entry, `${MAX_FAILED_NOTIFICATIONS} notifications in a row could not be delivered (${outcome})`);
      }
    } catch (error) {
      this.#deps.log(`webhooks: ${entry.record.sendTo}: ${(error as Error).message}`);
    } finally {
      entry.sending = false;
    }
  }

  /** One notification, with retries: 'delivered', 'gone', or why the last attempt failed. */
  async #send(entry: Entry, body: string): Promise<string> {
    const delays = this.#deps.retryDelaysMs ?? RETRY_DELAYS_MS;
    let failure = '';
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0 && !(await this.#wait(delays[attempt - 1]!))) return 'stopped';
      if (this.#entries.get(entry.record.id) !== entry) return 'ended';
      await this.#slots.take();
      try {
        const { authorization, dpop } = await this.#deps.sender.credentials(entry.record.origin, entry.record.sendTo);
        // A redirect is not followed: the notification goes to the URL its subscriber gave, or nowhere.
        const response = await this.#deps.fetch(entry.record.sendTo, {
          method: 'POST',
          headers: { 'Content-Type': 'application/ld+json', Authorization: authorization, DPoP: dpop },
          body,
          redirect: 'manual',
        });
        await response.body?.cancel();
        if (response.ok) return 'delivered';
        if (response.status === 410) return 'gone';
        failure = response.status >= 300 && response.status < 400 ? `answered ${response.status}, a redirect, which webhooks do not follow (subscribe with the URL that answers)` : `answered ${response.status}`;
      } catch (error) {
        failure = (error as Error).message;
      } finally {
        this.#slots.give();
      }
    }
    return failure;
  }

  /** Resolves true after `ms`, or false at once when the server stops meanwhile. */
  #wait(ms: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve(!this.#closed);
      }, ms);
      this.#timers.add(timer);
    });
  }

  /** Reads the records; adds what is new, forgets what is gone, deletes what has expired. */
  async #load(): Promise<void> {
    this.#loadedAt = this.#deps.now();
    const additionsBefore = this.#additions;
    const stored = new Set<string>();
    if (await this.#deps.storage.head(CONTAINER)) {
      for await (const member of this.#deps.storage.list(CONTAINER)) {
        const name = member.path.slice(CONTAINER.length);
        const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
        if (!isWebhookId(id) || member.isContainer) continue;
        stored.add(id);
        if (this.#entries.has(id)) continue;
        const record = await this.#read(member.path, member.size);
        if (!record) continue;
        if (record.endAt <= this.#deps.now()) await this.#deps.storage.delete(member.path);
        else this.#add(record);
      }
    }
    for (const [id, entry] of [...this.#entries]) if (!stored.has(id) && entry.added <= additionsBefore) this.#forget(id);
  }

  async #read(path: string, size: number): Promise<WebhookRecord | null> {
    if (size > MAX_RECORD_BYTES) return null;
    const stored = await this.#deps.storage.get(path);
    if (!stored) return null;
    try {
      const record: unknown = JSON.parse(await new Response(stored.body).text());
      if (isRecord(record)) return record;
    } catch {
      // Reported below, as for a record of the wrong shape.
    }
    this.#deps.log(`webhooks: ${path} is no webhook subscription record; left alone`);
    return null;
  }
}
