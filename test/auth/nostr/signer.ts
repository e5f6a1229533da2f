import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';

/** A test key that signs NIP-98 events: `Nostr <base64>` authorization values for a URL and method. */
export interface NostrSigner {
  pubkey: string;
  did: string;
  /** The Authorization value for a request; `tags` and fields override what the event says. */
  authorization(url: string, method: string, options?: { body?: string; createdAt?: number; kind?: number; tags?: string[][]; tamper?: boolean }): string;
}

export const base64OfJson = (value: unknown) => btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))));

export function nostrSigner(): NostrSigner {
  const secret = generateSecretKey();
  const pubkey = getPublicKey(secret);
  return {
    pubkey,
    did: `did:nostr:${pubkey}`,
    authorization(url, method, options = {}) {
      const tags = options.tags ?? [['u', url], ['method', method], ...(options.body !== undefined ? [['payload', bytesToHex(sha256(new TextEncoder().encode(options.body)))]] : [])];
      const template: EventTemplate = { kind: options.kind ?? 27235, created_at: options.createdAt ?? Math.floor(Date.now() / 1000), tags, content: '' };
      const event = finalizeEvent(template, secret);
      return `Nostr ${base64OfJson(options.tamper ? { ...event, content: 'changed after signing' } : event)}`;
    },
  };
}
