/**
 * NIP-98 HTTP authentication events: a kind 27235 event signed for one request (its URL, method and body
 * hash). The shape check is shared with the relay; the signature check loads nostr-tools only when used.
 */
import { shapeProblem, tagValue, type NostrEvent } from '../../nostr/event.ts';

export const HTTP_AUTH_KIND = 27235;
/** How far `created_at` may be from the server's clock, either way (NIP-98 suggests a reasonable window such as 60 s). */
export const HTTP_AUTH_WINDOW_SECONDS = 60;
/** Largest token read: an HTTP auth event has three short tags. */
const MAX_TOKEN_LENGTH = 8 * 1024;
const MAX_TAGS = 16;

/** `did:nostr:<pubkey>`: the agent IRI of a key (ACLs name it with acl:agent). */
export const didOfKey = (pubkey: string) => `did:nostr:${pubkey}`;

/** The event inside a token (base64 of its JSON), or the reason it is none. */
export function eventFromToken(token: string): NostrEvent | string {
  if (!token || token.length > MAX_TOKEN_LENGTH || /\s/.test(token)) return 'send "Nostr <base64 of a signed event>" with one event';
  let value: unknown;
  try {
    const bytes = Uint8Array.from(atob(token), (char) => char.charCodeAt(0));
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return 'the Nostr credentials are not base64 of a JSON event';
  }
  const problem = shapeProblem(value, MAX_TAGS);
  return problem ? `the Nostr event is malformed: ${problem}` : (value as NostrEvent);
}

/** The URL as compared with a `u` tag: parsed and serialised (case of scheme and host, default port), fragment dropped. */
export function normalizedUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return null;
  }
}

export interface HttpAuthTarget {
  /** The URL the event must name in its `u` tag. */
  url: string;
  /** The method the event must name in its `method` tag (compared case-insensitively). */
  method: string;
  /** Hex SHA-256 of the request body, or null when the request has none (then a `payload` tag is not needed). */
  bodyHash: string | null;
  nowSeconds: number;
}

/**
 * Why an authentic event does not authorize this request, or null when it does. The id and signature are
 * checked apart (see `integrityProblem`), after these cheap checks.
 */
export function httpAuthProblem(event: NostrEvent, target: HttpAuthTarget): string | null {
  if (event.kind !== HTTP_AUTH_KIND) return `a NIP-98 event has kind ${HTTP_AUTH_KIND}, not ${event.kind}`;
  if (Math.abs(event.created_at - target.nowSeconds) > HTTP_AUTH_WINDOW_SECONDS) return `the event's created_at must be within ${HTTP_AUTH_WINDOW_SECONDS} seconds of the server's clock`;
  const u = tagValue(event, 'u');
  if (u === undefined || normalizedUrl(u) !== normalizedUrl(target.url)) return `the event's u tag must be the request URL ${target.url}`;
  if (tagValue(event, 'method')?.toUpperCase() !== target.method.toUpperCase()) return `the event's method tag must be ${target.method}`;
  if (target.bodyHash !== null && tagValue(event, 'payload')?.toLowerCase() !== target.bodyHash) return 'the event\'s payload tag must be the SHA-256 (hex) of the request body';
  return null;
}
