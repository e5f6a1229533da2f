import { signRequest } from '@fedify/fedify';
import { OutboundFetchRefused } from '../http/outbound-guard.ts';
import type { OutboundFetch } from '../platform.ts';
import type { HandlerOutcome, StorageMessageQueue } from './message-queue.ts';

/** One activity for one inbox, as queued. */
export interface DeliveryJob {
  inbox: string;
  activity: Record<string, unknown>;
  /** The key the request is signed with (`<actor>#main-key`). */
  keyId: string;
  attempt: number;
}

/** Waits before the 2nd, 3rd, ... attempt; after the last the inbox is given up, with what was queued for it. */
export const RETRY_DELAYS_MS = [30_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 8 * 3600_000];

/** Answers the remote server gives for a request that will never succeed as it is. */
function isFinal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Signed delivery in the background: each job is queued (so it survives a restart) and sent by the queue's
 * listener with a draft-cavage HTTP Signature and a Digest (fedify's `signRequest`), through the server's
 * guarded outbound fetch. Each inbox is a queue of its own (the ordering key): a failed delivery is tried
 * again after growing delays in its place, and what was queued for that inbox after it waits, so an inbox
 * that comes back gets a post's Create before its Delete.
 */
export class Delivery {
  readonly #queue: StorageMessageQueue;
  readonly #fetch: OutboundFetch;
  readonly #privateKey: () => CryptoKey;
  readonly #log: (line: string) => void;

  constructor(deps: { queue: StorageMessageQueue; fetch: OutboundFetch; privateKey: () => CryptoKey; log: (line: string) => void }) {
    this.#queue = deps.queue;
    this.#fetch = deps.fetch;
    this.#privateKey = deps.privateKey;
    this.#log = deps.log;
  }

  /** Queues the activity for each inbox once, telling the runtime once for all of them; returns at once. */
  send(activity: Record<string, unknown>, inboxes: Iterable<string>, keyId: string): Promise<void> {
    const jobs = [...new Set(inboxes)].map((inbox) => ({ message: { inbox, activity, keyId, attempt: 1 } satisfies DeliveryJob, options: { orderingKey: inbox } }));
    return this.#queue.enqueueEach(jobs);
  }

  /** Runs the deliveries until `signal` aborts. */
  listen(signal: AbortSignal): Promise<void> {
    return this.#queue.listen((job: DeliveryJob) => this.#deliver(job), { signal });
  }

  /** Makes one pass over the deliveries due now; answers in how many ms the next is due (null: none is queued). */
  deliverDue(): Promise<number | null> {
    return this.#queue.handleDue((job: DeliveryJob) => this.#deliver(job));
  }

  async #deliver(job: DeliveryJob): Promise<HandlerOutcome> {
    const body = JSON.stringify(job.activity);
    const unsigned = new Request(job.inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' }, body });
    const signed = await signRequest(unsigned, this.#privateKey(), new URL(job.keyId));
    let failure: string;
    try {
      const response = await this.#fetch(signed.url, { method: 'POST', headers: signed.headers, body });
      if (response.ok) return;
      failure = `HTTP ${response.status}`;
      if (isFinal(response.status)) {
        this.#log(`activitypub: ${job.inbox} refused ${String(job.activity.id)} (${failure}); not retried`);
        return;
      }
    } catch (error) {
      if (error instanceof OutboundFetchRefused) {
        this.#log(`activitypub: delivery to ${job.inbox} refused: ${error.message}`);
        return;
      }
      failure = error instanceof Error ? error.message : String(error);
    }
    const delay = RETRY_DELAYS_MS[job.attempt - 1];
    if (delay === undefined) {
      this.#log(`activitypub: gave up delivering ${String(job.activity.id)} to ${job.inbox} after ${job.attempt} attempts (${failure})`);
      return { dropOrderingKey: true };
    }
    this.#log(`activitypub: delivery of ${String(job.activity.id)} to ${job.inbox} failed (${failure}); retrying in ${delay / 1000} s, what is queued for it after this waits`);
    return { retryAfterMs: delay, message: { ...job, attempt: job.attempt + 1 } satisfies DeliveryJob };
  }
}
