import type { MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
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

function randomSuffix(): string {
  return [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Fedify's message-queue interface over the server's small state: one JSON record per message, named by
 * its due time so a listing is in order. A message is deleted only after its handler returned, so one
 * queued before a crash or restart is handled by the next run (at least once). Handlers that want
 * retries queue the message again with a delay; a handler that throws drops the message.
 */
export class StorageMessageQueue implements MessageQueue {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  #wake: (() => void) | null = null;
  /** Keeps messages queued within one millisecond in the order they came. */
  #sequence = 0;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#now = now;
    this.#log = log;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    const due = this.#now() + Math.max(0, options?.delay?.total('millisecond') ?? 0);
    const record: QueuedMessage = { due, message };
    await writeRecord(this.#storage, `${QUEUE_CONTAINER}${String(due).padStart(15, '0')}-${String(this.#sequence++ % 1e9).padStart(9, '0')}-${randomSuffix()}.json`, record, true);
    this.#wake?.();
  }

  async enqueueMany(messages: unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    for (const message of messages) await this.enqueue(message, options);
  }

  /** Hands due messages to `handler` one at a time until `signal` aborts. */
  async listen(handler: (message: any) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      let wait = POLL_MS;
      try {
        wait = await this.handleDue(handler);
      } catch (error) {
        // The storage failed (a full disk, a lost connection): try again later rather than stop delivering.
        this.#log(`activitypub: the queue could not be read: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (signal?.aborted) break;
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
      const record = await readRecord<QueuedMessage>(this.#storage, path);
      if (!record) continue;
      const wait = record.value.due - this.#now();
      if (wait > 0) return Math.min(wait, POLL_MS);
      try {
        await handler(record.value.message);
      } catch (error) {
        this.#log(`activitypub: dropped a queued message: ${error instanceof Error ? error.message : String(error)}`);
      }
      await this.#storage.delete(path, { ifMatch: record.etag });
    }
    return POLL_MS;
  }
}
