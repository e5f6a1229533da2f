import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import { jose } from '../jose.ts';
import { fetchDocument, isLocal, type DocumentSources } from './documents.ts';

/** How long an issuer's discovery document and keys are used before they are fetched again. */
export const ISSUER_KEYS_TTL_MS = 10 * 60_000;
/** How long a failed discovery is remembered, so refused credentials cannot make the server fetch on every request. */
export const ISSUER_FAILURE_TTL_MS = 30_000;
/** A key id the cached set lacks makes the keys be fetched again, but not more often than this. */
export const ISSUER_REFRESH_INTERVAL_MS = 30_000;
const MAX_ISSUERS = 1000;

/** An issuer URL without the trailing slash, so `https://idp.example/` and `https://idp.example` compare equal. */
export function normalizedIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, '');
}

interface KeySet {
  getKey: JWTVerifyGetKey;
  fetchedAt: number;
}

interface Entry {
  keys: Promise<KeySet>;
  fetchedAt: number;
  failed: boolean;
}

/**
 * The signing keys of Solid-OIDC issuers: `{iss}/.well-known/openid-configuration` gives `jwks_uri`, whose
 * key set verifies the issuer's tokens. Both are cached per issuer, concurrent requests share one fetch,
 * and a token signed with a key id not in the cached set fetches the set again (at most every 30 s).
 */
export class IssuerKeys {
  readonly #sources: DocumentSources;
  readonly #now: () => number;
  readonly #entries = new BoundedCache<string, Entry>(MAX_ISSUERS);

  constructor(sources: DocumentSources, now: () => number) {
    this.#sources = sources;
    this.#now = now;
  }

  /** The key resolver for tokens of `issuer`; rejects with an Error saying why the issuer's keys are not available. */
  async keysOf(issuer: string, serverOrigin: string): Promise<JWTVerifyGetKey> {
    const set = await this.#current(issuer, serverOrigin, false);
    return async (header, token) => {
      const { errors } = await jose();
      try {
        return await set.getKey(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || this.#now() - set.fetchedAt < ISSUER_REFRESH_INTERVAL_MS) throw error;
        const fresh = await this.#current(issuer, serverOrigin, true);
        return fresh.getKey(header, token);
      }
    };
  }

  #current(issuer: string, serverOrigin: string, refresh: boolean): Promise<KeySet> {
    // Keys read from this server answer only requests to its origin (see WebIdIssuers).
    const key = `${isLocal(issuer, serverOrigin) ? 'local' : 'remote'} ${normalizedIssuer(issuer)}`;
    const now = this.#now();
    const known = this.#entries.get(key);
    if (known) {
      const age = now - known.fetchedAt;
      const fresh = refresh ? age < ISSUER_REFRESH_INTERVAL_MS : age < (known.failed ? ISSUER_FAILURE_TTL_MS : ISSUER_KEYS_TTL_MS);
      if (fresh) return known.keys;
    }
    const entry: Entry = { keys: this.#fetch(issuer, serverOrigin), fetchedAt: now, failed: false };
    entry.keys.catch(() => {
      entry.failed = true;
    });
    this.#entries.set(key, entry);
    return entry.keys;
  }

  async #fetch(issuer: string, serverOrigin: string): Promise<KeySet> {
    const discoveryUrl = `${normalizedIssuer(issuer)}/.well-known/openid-configuration`;
    const discovery = parseJson(await fetchDocument(this.#sources, discoveryUrl, 'application/json', serverOrigin), discoveryUrl) as {
      issuer?: unknown;
      jwks_uri?: unknown;
    };
    if (typeof discovery.issuer !== 'string' || normalizedIssuer(discovery.issuer) !== normalizedIssuer(issuer)) {
      throw new Error(`the discovery document of ${issuer} names another issuer (${JSON.stringify(discovery.issuer ?? null)})`);
    }
    if (typeof discovery.jwks_uri !== 'string') throw new Error(`the discovery document of ${issuer} has no jwks_uri`);
    const jwksUrl = new URL(discovery.jwks_uri, discoveryUrl).href;
    const jwks = parseJson(await fetchDocument(this.#sources, jwksUrl, 'application/jwk-set+json, application/json', serverOrigin), jwksUrl) as JSONWebKeySet;
    if (!Array.isArray(jwks?.keys)) throw new Error(`${jwksUrl} is not a JSON Web Key Set`);
    const { createLocalJWKSet } = await jose();
    return { getKey: createLocalJWKSet(jwks), fetchedAt: this.#now() };
  }
}

function parseJson(document: { text: string }, url: string): unknown {
  try {
    return JSON.parse(document.text);
  } catch {
    throw new Error(`${url} is not JSON`);
  }
}
