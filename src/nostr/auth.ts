/**
 * NIP-42: a connection proves it holds a key by signing the relay's challenge. What it unlocks here: events
 * of the private kinds (encrypted direct messages and gift wraps) are served only to their parties.
 */
import { AUTH_KIND, tagValue, type NostrEvent } from './event.ts';

/** How far an AUTH event's `created_at` may be from the server's clock (NIP-42 suggests about ten minutes). */
export const AUTH_WINDOW_SECONDS = 600;

/** Kind 4 (NIP-04 direct message) and 1059 (NIP-59 gift wrap): readable by the author and the `p`-tagged recipients only. */
export const PRIVATE_KINDS: ReadonlySet<number> = new Set([4, 1059]);

export function newChallenge(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Whether a connection authenticated as these keys may receive the event. */
export function readableBy(event: NostrEvent, keys: ReadonlySet<string>): boolean {
  if (!PRIVATE_KINDS.has(event.kind)) return true;
  return keys.has(event.pubkey) || event.tags.some((tag) => tag[0] === 'p' && tag[1] !== undefined && keys.has(tag[1]));
}

/** Why an authentic event does not authenticate this connection (the text after `invalid: `), or null when it does. */
export function authProblem(event: NostrEvent, challenge: string, relayUrl: URL, nowSeconds: number): string | null {
  if (event.kind !== AUTH_KIND) return `an AUTH event has kind ${AUTH_KIND}`;
  if (Math.abs(event.created_at - nowSeconds) > AUTH_WINDOW_SECONDS) return `created_at must be within ${AUTH_WINDOW_SECONDS / 60} minutes of now`;
  if (tagValue(event, 'challenge') !== challenge) return 'the challenge tag is not the challenge this connection was sent';
  let host: string | undefined;
  try {
    host = new URL(tagValue(event, 'relay') ?? '').host;
  } catch {
    host = undefined;
  }
  if (host !== relayUrl.host) return `the relay tag must name this relay (${relayUrl.host})`;
  return null;
}
