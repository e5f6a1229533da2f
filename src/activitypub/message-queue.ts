import type { MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { fanOut, type FanOut } from '../cluster/fan-out.ts';
import type { SharedState } from '../cluster/shared-state.ts';
import type { StorageDriver } from '../storage/types.ts';
import { QUEUE_CONTAINER } from './paths.ts';
import { readRecord, recordPaths, writeRecord } from './records.ts';

interface QueuedMessage {
  /** Milliseconds since the epoch before which the message is not handed out. */
  due: number;
  message: unknown;
}

/** How often the listener looks for messages another process (or an earlier run) queued. */
const POLL_MS = 5_000;

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
}

function randomSuffix(): string {
  return [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Fedify's message-queue interface over the server's small state: one JSON record per message, named by
 * its due time so a listing is in order. A message is deleted only after its handler returned, so one
 * queued before a crash or restart is handled by the next run (at least once). Handlers that want
 * retries queue the message again with a delay; a handler that throws drops the message.
 *
 * With `shared` (several instances on one data directory), a message is handed out only by the instance that
 * claimed it first, with a shared set-once key that expires after `claimMs`: if that instance dies before the
 * message is deleted, another one takes it once the claim expired. New messages wake every instance's listener.
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

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void, options: MessageQueueOptions = {}) {
    this.#storage = storage;
    this.#now = now;
    this.#log = log;
    this.#shared = options.shared;
    this.#claimMs = options.claimMs ?? CLAIM_MS;
    this.#peers = options.shared ? fanOut<null>(options.shared, 'activitypub-queue', () => this.#wakeUp(), log) : null;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    const due = this.#now() + Math.max(0, options?.delay?.total('millisecond') ?? 0);
    const record: QueuedMessage = { due, message };
    await writeRecord(this.#storage, `${QUEUE_CONTAINER}${String(due).padStart(15, '0')}-${String(this.#sequence++ % 1e9).padStart(9, '0')}-${randomSuffix()}.json`, record, true);
    this.#wakeUp();
    this.#peers?.send(null);
  }

  #wakeUp(): void {
    if (this.#wake) this.#wake();
    else this.#queuedDuringPass = true;
  }

  async enqueueMany(messages: unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    for (const message of messages) await this.enqueue(message, options);
  }

  /** Hands due messages to `handler` one at a time until `signal` aborts. */
  async listen(handler: (message: any) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      // Without the other instances' wake-ups (Redis away) the poll below still finds their messages.
      this.#peers?.init().catch((error: unknown) => this.#log(`activitypub: not hearing other instances' new messages yet: ${(error as Error).message}`));
      let wait = POLL_MS;
      this.#queuedDuringPass = false;
      try {
        wait = await this.handleDue(handler);
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

  /** Handles every message due now, once; answers how long to wait for the next one. */
  async handleDue(handler: (message: any) => Promise<void> | void): Promise<number> {
    for (const path of await recordPaths(this.#storage, QUEUE_CONTAINER)) {
      if (this.#handled.has(path)) {
        await this.#storage.delete(path);
        this.#handled.delete(path);
        continue;
      }
      const record = await readRecord<QueuedMessage>(this.#storage, path);
      if (!record) continue;
      const wait = record.value.due - this.#now();
      if (wait > 0) return Math.min(wait, POLL_MS);
      if (!(await this.#claim(path))) continue;
      try {
        await handler(record.value.message);
      } catch (error) {
        this.#log(`activitypub: dropped a queued message: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.#handled.add(path);
      await this.#storage.delete(path, { ifMatch: record.etag });
      this.#handled.delete(path);
    }
    return POLL_MS;
  }

  /**
   * True when this instance may handle the message at `path`: always on its own; with other instances, when
   * its claim was the first and the message is still queued (another may have handled it since the listing).
   */
  async #claim(path: string): Promise<boolean> {
    if (!this.#shared) return true;
    if (!(await this.#shared.setIfAbsent(`activitypub-queue:claim:${path}`, 'claimed', this.#claimMs))) return false;
    return (await readRecord<QueuedMessage>(this.#storage, path)) !== null;
  }
}
