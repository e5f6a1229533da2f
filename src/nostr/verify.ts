/**
 * The id hash and BIP-340 signature check of an event, through nostr-tools (pure JavaScript, @noble/curves, on
 * every runtime). Its own module because loading it costs tens of milliseconds: only an enabled relay does.
 */
import { getEventHash, verifyEvent } from 'nostr-tools/pure';
import type { NostrEvent } from './event.ts';

/** Why a well-shaped event is not authentic (the text after `invalid: `), or null when its id and signature hold. */
export function integrityProblem(event: NostrEvent): string | null {
  if (getEventHash(event) !== event.id) return 'event id does not match the hash of its content';
  if (!verifyEvent(event)) return 'signature does not verify';
  return null;
}
