import { FetchError, getDocumentLoader, signRequest, type DocumentLoader } from '@fedify/fedify';
import type { OutboundFetch } from '../platform.ts';

/** The JSON-LD contexts fedify ships; they are never fetched. */
const PRELOADED_CONTEXTS = new Set([
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  'https://w3id.org/security/data-integrity/v1',
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/multikey/v1',
  'https://w3id.org/identity/v1',
  'https://purl.archive.org/socialweb/webfinger',
  'http://schema.org/',
  'https://gotosocial.org/ns',
]);

const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams";q=0.9, application/json;q=0.5';

/**
 * Fedify's document loader over the server's guarded outbound fetch, so actor documents, keys and objects
 * obey the same address, size, redirect and time rules as every other fetch of the server.
 */
export function guardedDocumentLoader(fetch: OutboundFetch, signer?: { keyId: URL; privateKey: CryptoKey }): DocumentLoader {
  return async (url) => {
    let headers = new Headers({ accept: ACCEPT });
    // Servers in "authorized fetch" mode answer only signed GETs.
    if (signer) headers = (await signRequest(new Request(url, { headers }), signer.privateKey, signer.keyId)).headers;
    const response = await fetch(url, { headers });
    if (!response.ok) throw new FetchError(new URL(url), `HTTP ${response.status}: ${url}`);
    let document: unknown;
    try {
      document = await response.json();
    } catch {
      throw new FetchError(new URL(url), `not JSON: ${url}`);
    }
    return { contextUrl: null, document, documentUrl: response.url || url };
  };
}

/** Contexts: fedify's bundled copies, anything else through the guarded fetch. */
export function guardedContextLoader(fetch: OutboundFetch): DocumentLoader {
  const preloaded = getDocumentLoader();
  const outbound = guardedDocumentLoader(fetch);
  return (url) => (PRELOADED_CONTEXTS.has(url) ? preloaded(url) : outbound(url));
}
