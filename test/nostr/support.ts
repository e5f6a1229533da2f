import type { Filter } from 'nostr-tools/filter';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import type { Relay } from 'nostr-tools/relay';
import type { NostrEvent } from '../../src/nostr/event.ts';

/** A key pair that signs events for tests. */
export class Author {
  readonly secret = generateSecretKey();
  readonly pubkey = getPublicKey(this.secret);

  sign(fields: { kind?: number; created_at?: number; tags?: string[][]; content?: string } = {}): NostrEvent {
    const event = finalizeEvent(
      { kind: fields.kind ?? 1, created_at: fields.created_at ?? Math.floor(Date.now() / 1000), tags: fields.tags ?? [], content: fields.content ?? '' },
      this.secret,
    );
    // A plain copy: nostr-tools marks what it signed as verified, and the relay must check for itself.
    return JSON.parse(JSON.stringify(event)) as NostrEvent;
  }
}

/** Generous for a loaded machine: these bound a client's waits, they are not what tests measure. */
export const CLIENT_TIMEOUT_MS = 20_000;

/** The event as the relay sent it, without the mark nostr-tools adds to what it has verified. */
export const plain = (event: object) => JSON.parse(JSON.stringify(event)) as NostrEvent;

/** The stored events a REQ returns, up to EOSE, in the order sent (rejects when the relay answers CLOSED). */
export function query(relay: Relay, filters: Filter[]): Promise<NostrEvent[]> {
  return new Promise((resolve, reject) => {
    const events: NostrEvent[] = [];
    const subscription = relay.subscribe(filters, {
      eoseTimeout: CLIENT_TIMEOUT_MS,
      onevent: (event) => events.push(plain(event)),
      oneose: () => {
        resolve(events);
        subscription.close();
      },
      onclose: (reason) => reject(new Error(`subscription closed: ${reason}`)),
    });
  });
}
