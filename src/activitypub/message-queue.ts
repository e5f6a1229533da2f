import type { MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { fanOut, type FanOut } from '../cluster/fan-out.ts';
import type { SharedState } from '../cluster/shared-state.ts';
import type { StorageDriver } from '../storage/types.ts';
import { hashName, QUEUE_CONTAINER } from './paths.ts';
import { readRecord, recordPaths, writeRecord } from './records.ts';

interface QueuedMessage {
  /** Milliseconds since the epoch before which the message is not handed out. */
  due: number;
  message: unknown;
}

export interface EnqueueOptions extends MessageQueueEnqueueOptions {
  /**
   * Messages with one ordering key (a destination inbox) are handed out in the order they were queued, each
   * only once the one before it is done: a message waiting for its retry holds back those behind it.
   */
  orderingKey?: string;
}

/** What a handler answers: nothing when it is done with the message, or one of these. */
export type HandlerOutcome = void | undefined | { retryAfterMs: number; message: unknown } | { dropOrderingKey: true };
export type QueueHandler = (message: any) => Promise<HandlerOutcome> | HandlerOutcome;

/** How often the listener looks for messages another process (or an earlier run) queued. */
const POLL_MS = 5_000;

/**
 * How long one pass over the queue goes on before it stops and asks to be called again at once: a pass that
 * meets many stalled inboxes (each up to the outbound timeout) must not outlast a Durable Object's alarm.
 */
export const PASS_BUDGET_MS = 60_000;

/**
 * How long an instance's claim on a message keeps the other instances off it (`--redis-url`): longer than one
 * delivery takes (the outbound fetch times out well before), short enough that a message claimed by an
 * instance that died is sent by another soon after.
 */
export const CLAIM_MS = 5 * 60_000;

export interface MessageQueueOptions {
  /** With several instances on one data directory: each message is claimed by one of them before it is handled. */
  shared?: SharedState;
  /** Overrides CLAIM_MS (tests). */
  claimMs?: number;
  /**
   * Where the runtime, not `listen`, works the queue (Workers): told of each message queued, with how long
   * until it is due, so it calls `handleDue` then.
   */
  schedule?(dueInMs: number): void;
}

function randomSuffix(): string {
  return [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * A message's file name: when it was queued (then a counter and random hex), so a listing is in queueing
 * order, and the start of its ordering key's hash, so messages held back behind another are skipped
 * without being read. Names of three parts (before ordering keys) have no key.
 */
async function messageName(queuedAt: number, sequence: number, orderingKey: string | undefined): Promise<string> {
  const key = orderingKey === undefined ? [] : [(await hashName(orderingKey)).slice(0, 16)];
  return [String(queuedAt).padStart(15, '0'), String(sequence % 1e9).padStart(9, '0'), ...key, randomSuffix()].join('-') + '.json';
}

function orderingTagOf(path: string): string | null {
  const parts = path.slice(path.lastIndexOf('/') + 1).split('-');
  return parts.length === 4 ? parts[2]! : null;
}

/**
 * Fedify's message-queue interface over the server's small state: one JSON record per message, named in
 * queueing order. A message is deleted only after its handler returned, so one queued before a crash or
 * restart is handled by the next run (at least once); a handler that throws drops the message.
 *
 * Messages with an ordering key keep their order: a handler that answers `retryAfterMs` leaves the message in
 * its place with a later due time, and every later message with that key waits behind it (a per-inbox
 * queue); `dropOrderingKey` drops the message and those queued behind it. Messages without a key are
 * handed out whenever they are due.
 *
 * With `shared` (several instances on one data directory), a message is handed out only by the instance that
 * claimed it first, with a shared set-once key (per version of the record) that expires after `claimMs`: if
 * that instance dies before the message is done, another one takes it once the claim expired. A message
 * another instance holds holds back its key here too. New messages wake every instance's listener, except
 * where the runtime works the queue (`schedule`): no instance listens there.
 */
export class StorageMessageQueue implements MessageQueue {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  #wake: (() => void) | null = null;
  /** A message was queued while the listener was busy with a pass that had listed the queue already. */
  #queuedDuringPass = false;
  /** Keeps messages queued within one millisecond in the order they came. */
  #sequence = 0;
  readonly #shared: SharedState | undefined;
  readonly #claimMs: number;
  readonly #peers: FanOut<null> | null;
  /** Messages handled whose deletion failed: deleted on the next pass, never handled again. */
  readonly #handled = new Set<string>();
  readonly #schedule: ((dueInMs: number) => void) | undefined;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void, options: MessageQueueOptions = {}) {
    this.#storage = storage;
    this.#now = now;
    this.#log = log;
    this.#shared = options.shared;
    this.#claimMs = options.claimMs ?? CLAIM_MS;
    this.#schedule = options.schedule;
    // Where the runtime works the queue, no instance listens: waking them would only cost a call to each.
    this.#peers = options.shared && !options.schedule ? fanOut<null>(options.shared, 'activitypub-queue', () => this.#wakeUp(), log) : null;
  }

  enqueue(message: unknown, options?: EnqueueOptions): Promise<void> {
    return this.enqueueEach([{ message, ...(options && { options }) }]);
  }

  /**
   * Queues the messages in their order, then tells the runtime (`schedule`) and the listeners once for all
   * of them: on Workers each telling is a call to the Durable Object, and one that lands while its alarm
   * works the queue brings another pass after it.
   */
  async enqueueEach(entries: readonly { message: unknown; options?: EnqueueOptions }[]): Promise<void> {
    let soonest: number | null = null;
    try {
      for (const { message, options } of entries) {
        const now = this.#now();
        const delay = Math.max(0, options?.delay?.total('millisecond') ?? 0);
        const record: QueuedMessage = { due: now + delay, message };
        await writeRecord(this.#storage, QUEUE_CONTAINER + (await messageName(now, this.#sequence++, options?.orderingKey)), record, true);
        soonest = Math.min(soonest ?? delay, delay);
      }
    } finally {
      // Also when a later write failed: the messages queued before it are sent.
      if (soonest !== null) {
        this.#schedule?.(soonest);
        this.#wakeUp();
        this.#peers?.send(null);
      }
    }
  }

  #wakeUp(): void {
    if (this.#wake) this.#wake();
    else this.#queuedDuringPass = true;
  }

  enqueueMany(messages: unknown[], options?: EnqueueOptions): Promise<void> {
    return this.enqueueEach(messages.map((message) => ({ message, ...(options && { options }) })));
  }

  /** Hands due messages to `handler` one at a time until `signal` aborts. */
  async listen(handler: QueueHandler, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      // Without the other instances' wake-ups (Redis away) the poll below still finds their messages.
      this.#peers?.init().catch((error: unknown) => this.#log(`activitypub: not hearing other instances' new messages yet: ${(error as Error).message}`));
      let wait = POLL_MS;
      this.#queuedDuringPass = false;
      try {
        wait = (await this.handleDue(handler)) ?? POLL_MS;
      } catch (error) {
        // The storage or the shared state failed (a full disk, Redis away): try again later rather than stop delivering.
        this.#log(`activitypub: the queue could not be worked through: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (signal?.aborted) break;
      if (this.#queuedDuringPass) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        this.#wake = done;
        signal?.addEventListener('abort', done);
      });
      this.#wake = null;
    }
  }

  /**
   * Handles every message due now and not held back, once, for at most PASS_BUDGET_MS. Answers how long to
   * wait for the next one: the time until it is due, POLL_MS for one another instance holds, 0 when the
   * budget ran out with messages left to look at, null when the queue is empty.
   */
  async handleDue(handler: QueueHandler): Promise<number | null> {
    const stopAt = this.#now() + PASS_BUDGET_MS;
    let wait: number | null = null;
    const waitAtMost = (ms: number) => (wait = Math.min(wait ?? ms, ms));
    /** Ordering keys whose first message is not done: their later messages wait. */
    const heldBack = new Set<string>();
    const paths = await recordPaths(this.#storage, QUEUE_CONTAINER);
    for (const [index, path] of paths.entries()) {
      if (this.#now() >= stopAt) return 0;
      if (this.#handled.has(path)) {
        await this.#storage.delete(path);
        this.#handled.delete(path);
        continue;
      }
      const tag = orderingTagOf(path);
      if (tag !== null && heldBack.has(tag)) continue;
      const hold = () => {
        if (tag !== null) heldBack.add(tag);
      };
      const record = await readRecord<QueuedMessage>(this.#storage, path);
      if (!record) continue;
      const dueIn = record.value.due - this.#now();
      if (dueIn > 0) {
        waitAtMost(dueIn);
        hold();
        continue;
      }
      if (!(await this.#claim(path, record.etag))) {
        waitAtMost(POLL_MS);
        hold();
        continue;
      }
      let outcome: HandlerOutcome;
      try {
        outcome = await handler(record.value.message);
      } catch (error) {
        this.#log(`activitypub: dropped a queued message: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (outcome && 'retryAfterMs' in outcome) {
        const retry: QueuedMessage = { due: this.#now() + outcome.retryAfterMs, message: outcome.message };
        await this.#storage.put(path, JSON.stringify(retry), { contentType: 'application/json', ifMatch: record.etag });
        waitAtMost(outcome.retryAfterMs);
        hold();
        continue;
      }
      if (outcome && 'dropOrderingKey' in outcome && tag !== null) {
        const behind = paths.slice(index + 1).filter((later) => orderingTagOf(later) === tag);
        for (const later of behind) await this.#storage.delete(later);
        if (behind.length > 0) this.#log(`activitypub: dropped ${behind.length} queued message(s) behind it`);
      }
      this.#handled.add(path);
      await this.#storage.delete(path, { ifMatch: record.etag });
      this.#handled.delete(path);
    }
    return wait;
  }

  /**
   * True when this instance may handle the message at `path` as it was read (`etag`): always on its own;
   * with other instances, when its claim on that version was the first and the message is still queued
   * unchanged (another may have handled it, or put it back for a retry, since it was read).
   */
  async #claim(path: string, etag: string): Promise<boolean> {
    if (!this.#shared) return true;
    if (!(await this.#shared.setIfAbsent(`activitypub-queue:claim:${path}:${etag}`, 'claimed', this.#claimMs))) return false;
    return (await readRecord<QueuedMessage>(this.#storage, path))?.etag === etag;
  }
}
