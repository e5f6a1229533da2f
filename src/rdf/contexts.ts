import { ACTIVITY_STREAMS_CONTEXT } from './contexts/activitystreams.ts';
import { SECURITY_V1_CONTEXT } from './contexts/security-v1.ts';
import { SOLID_OIDC_CONTEXT } from './contexts/solid-oidc.ts';

/**
 * JSON-LD contexts the server knows without fetching. Request-time fetches of remote contexts are never
 * made: they would be slow, leak requests to third parties and fail offline. Only contexts whose published
 * text we could transcribe faithfully are here; the LDP and Solid vocabularies publish no JSON-LD context.
 * Lookups ignore the scheme (http/https) and a trailing slash or `.jsonld`, as documents spell them all ways.
 */
export const BUNDLED_CONTEXTS: Record<string, Record<string, unknown>> = {
  'https://www.w3.org/ns/activitystreams': ACTIVITY_STREAMS_CONTEXT,
  'https://w3id.org/security/v1': SECURITY_V1_CONTEXT,
  'https://www.w3.org/ns/solid/oidc-context': SOLID_OIDC_CONTEXT,
};

/** The key a context URL is looked up under. */
export function contextKey(url: string): string {
  return url.replace(/^http:/, 'https:').replace(/\.jsonld$/, '').replace(/\/$/, '');
}

const byKey = new Map(Object.entries(BUNDLED_CONTEXTS).map(([url, document]) => [contextKey(url), document]));

export function bundledContext(url: string): Record<string, unknown> | undefined {
  return byKey.get(contextKey(url));
}
