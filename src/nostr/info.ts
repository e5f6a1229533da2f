/**
 * NIP-11: the relay information document, served on the relay URL to HTTP requests that accept
 * `application/nostr+json`, with the limits the relay enforces and CORS headers browser clients need.
 */
import { SVC_HOMEPAGE, SVC_VERSION } from '../http/software.ts';
import { problemResponse } from '../http/problem.ts';
import type { RelayLimits } from './limits.ts';

export const NOSTR_INFO_TYPE = 'application/nostr+json';
/** NIPs the relay implements: basic protocol, deletion, information document, expiration, authentication. */
export const SUPPORTED_NIPS = [1, 9, 11, 40, 42] as const;

export function relayInformation(limits: RelayLimits, maxEvents: number, persistent: boolean): Record<string, unknown> {
  const kept = persistent ? 'kept across restarts' : 'kept in memory only';
  return {
    name: 'svc relay',
    description: `The Nostr relay of an svc pod server. Events are ${kept}: at most ${maxEvents}, the earliest received evicted first.`,
    supported_nips: SUPPORTED_NIPS,
    // NIP-11: `software`, when given, MUST be the URL of the project's homepage; never a bare name.
    ...(SVC_HOMEPAGE && { software: SVC_HOMEPAGE }),
    version: SVC_VERSION,
    limitation: {
      max_message_length: limits.maxMessageLength,
      max_subscriptions: limits.maxSubscriptions,
      max_filters: limits.maxFilters,
      max_limit: limits.maxLimit,
      max_subid_length: limits.maxSubidLength,
      max_event_tags: limits.maxEventTags,
      created_at_upper_limit: limits.maxFutureSeconds,
      auth_required: false,
      payment_required: false,
      restricted_writes: false,
    },
    retention: [{ count: maxEvents }],
  };
}

function wantsInformation(request: Request): boolean {
  return (request.headers.get('accept') ?? '').toLowerCase().includes(NOSTR_INFO_TYPE);
}

/** GET/HEAD on the relay URL: the document for `Accept: application/nostr+json`, else a pointer to WebSockets. */
export function relayInformationResponse(request: Request, document: Record<string, unknown>): Response {
  if (!wantsInformation(request)) {
    return problemResponse(426, `This is a Nostr relay: connect with a WebSocket client, or send "Accept: ${NOSTR_INFO_TYPE}" for its information document (NIP-11).`, {
      type: 'urn:svc:problem:upgrade-required',
      headers: { Upgrade: 'websocket', Connection: 'Upgrade', Vary: 'Accept' },
    });
  }
  return new Response(request.method === 'HEAD' ? null : JSON.stringify(document), {
    headers: {
      'Content-Type': NOSTR_INFO_TYPE,
      Vary: 'Accept',
      // NIP-11 asks for all three CORS headers on the document itself, not only on preflights.
      'Access-Control-Allow-Headers': 'Accept',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    },
  });
}
