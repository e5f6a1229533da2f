/**
 * Nostr events (NIP-01): their shape and the kind ranges that decide how a relay keeps them. The id and
 * signature check is in verify.ts, loaded only when the relay is on.
 */

export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;
export const isHex64 = (value: unknown): value is string => typeof value === 'string' && HEX64.test(value);

/** Kinds 0, 3 and 10000-19999: one event per author and kind. */
export const isReplaceable = (kind: number) => kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000);
/** Kinds 20000-29999: delivered to live subscribers, never stored. */
export const isEphemeral = (kind: number) => kind >= 20000 && kind < 30000;
/** Kinds 30000-39999: one event per author, kind and `d` tag. */
export const isAddressable = (kind: number) => kind >= 30000 && kind < 40000;

export const DELETION_KIND = 5;
/** NIP-42 authentication events: signed for one connection, never published. */
export const AUTH_KIND = 22242;

/** The first value of the first tag with this name. */
export function tagValue(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((tag) => tag[0] === name)?.[1];
}

/**
 * The address under which a replaceable or addressable event replaces earlier ones
 * (`kind:pubkey:` or `kind:pubkey:d`, the form NIP-01 `a` tags use); undefined for other kinds.
 */
export function addressOf(event: NostrEvent): string | undefined {
  if (isReplaceable(event.kind)) return `${event.kind}:${event.pubkey}:`;
  if (isAddressable(event.kind)) return `${event.kind}:${event.pubkey}:${tagValue(event, 'd') ?? ''}`;
  return undefined;
}

/** True when `a` should be kept over `b` for the same address: newer, or on a tie the lower id (NIP-01). */
export function supersedes(a: NostrEvent, b: NostrEvent): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id);
}

/** NIP-40: the `expiration` tag as seconds since the epoch, if the event has a valid one. */
export function expirationOf(event: NostrEvent): number | undefined {
  const value = tagValue(event, 'expiration');
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Why a value is no well-formed event (the text after `invalid: `), or null when it is one. */
export function shapeProblem(value: unknown, maxTags: number): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the event must be a JSON object';
  const event = value as Record<string, unknown>;
  if (!isHex64(event.id)) return 'id must be 64 lowercase hex characters';
  if (!isHex64(event.pubkey)) return 'pubkey must be 64 lowercase hex characters';
  if (typeof event.sig !== 'string' || !HEX128.test(event.sig)) return 'sig must be 128 lowercase hex characters';
  if (!Number.isSafeInteger(event.created_at) || (event.created_at as number) < 0) return 'created_at must be a whole number of seconds';
  if (!Number.isInteger(event.kind) || (event.kind as number) < 0 || (event.kind as number) > 65535) return 'kind must be a whole number from 0 to 65535';
  if (typeof event.content !== 'string') return 'content must be a string';
  if (!Array.isArray(event.tags)) return 'tags must be an array';
  if (event.tags.length > maxTags) return `too many tags (at most ${maxTags})`;
  for (const tag of event.tags) {
    if (!Array.isArray(tag) || tag.length === 0 || !tag.every((item) => typeof item === 'string')) return 'each tag must be a non-empty array of strings';
  }
  return null;
}

/** Only the seven NIP-01 fields, so nothing else a client sent is stored or relayed. */
export function canonicalEvent(event: NostrEvent): NostrEvent {
  const { id, pubkey, created_at, kind, tags, content, sig } = event;
  return { id, pubkey, created_at, kind, tags, content, sig };
}
