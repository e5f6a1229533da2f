import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
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
