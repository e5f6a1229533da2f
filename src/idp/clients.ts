import { httpUrlOf } from '../http/http-url.ts';
import type { OutboundFetch } from '../platform.ts';
import type { StorageDriver } from '../storage/types.ts';
import { AccountMarkers } from './account-markers.ts';
import { ExpiredRecords } from './expired-records.ts';
import type { ClientRules } from './first-party.ts';
import { oauthError } from './oauth-error.ts';
import { ACCOUNT_CLIENTS, CLIENTS } from './paths.ts';
import { equalInConstantTime, randomToken, sha256 } from './random.ts';

/**
 * How long a client registered at `/idp/reg` is kept before a user first allows it. Anyone may register, so
 * registrations nobody uses are swept instead of piling up under `/.server/` (issue 29); once allowed, a
 * client is kept.
 */
export const UNCONFIRMED_CLIENT_MS = 24 * 60 * 60 * 1000;

/** The client id of Solid-OIDC's public client: any app that cannot keep a secret or publish a document. */
export const PUBLIC_CLIENT = 'http://www.w3.org/ns/solid/terms#PublicOidcClient';

/** A client as the endpoints see it, whatever kind of client_id named it. */
export interface Client {
  clientId: string;
  /** What the consent page shows. */
  name: string;
  /** Null: any http(s) redirect (the public client, whose redirects nobody vouches for). */
  redirectUris: readonly string[] | null;
  /** SHA-256 of the secret, for clients that authenticate at the token endpoint. */
  secretHash?: string;
  /** Client credentials an account holder made: the client logs in as that account (client_credentials). */
  accountId?: string;
  /** The server's own data browser (first-party.ts): the only client sent to the server's own origin. */
  firstParty?: boolean;
  /** The data browser on a pod's host (subdomain mode): an origin the pod's own stored pages share. */
  onPodHost?: boolean;
}

/** What `/idp/reg` and the account's credentials keep. */
interface ClientRecord {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  secret_hash?: string;
  account?: string;
  created: string;
  /** Until a user first allows the client (see UNCONFIRMED_CLIENT_MS): when the registration is forgotten. */
  expires?: number;
}

const CLIENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const MAX_DOCUMENT_BYTES = 64 * 1024;

/** An http(s) URL without a fragment (a Client ID or a redirect URI). */
function isHttpUrl(value: unknown): value is string {
  return httpUrlOf(value)?.hash === '';
}

export class ClientStore {
  readonly #storage: StorageDriver;
  readonly #fetch: OutboundFetch | undefined;
  readonly #now: () => number;
  readonly #unconfirmed: ExpiredRecords;
  readonly #rules: ClientRules;
  /** The client credentials of each account (--idp-max-client-credentials). */
  readonly #credentials: AccountMarkers;

  constructor(storage: StorageDriver, fetch: OutboundFetch | undefined, now: () => number, log: (line: string) => void, rules: ClientRules, maxCredentials = Infinity) {
    this.#storage = storage;
    this.#fetch = fetch;
    this.#now = now;
    this.#unconfirmed = new ExpiredRecords(storage, CLIENTS, now, log, { lifetimeMs: UNCONFIRMED_CLIENT_MS, expiryOptional: true });
    this.#rules = rules;
    this.#credentials = new AccountMarkers(storage, ACCOUNT_CLIENTS, { max: maxCredentials, things: 'client credentials', type: 'too-many-credentials', remedy: 'revoke one first.' });
  }

  /** Dynamic client registration (RFC 7591) at the server seen as `here`: answers the metadata the client gets back. */
  async register(metadata: unknown, here: URL): Promise<Record<string, unknown>> {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw oauthError(400, 'invalid_client_metadata', 'Send the client metadata as a JSON object.');
    }
    const fields = metadata as Record<string, unknown>;
    const redirects = fields.redirect_uris;
    if (!Array.isArray(redirects) || redirects.length === 0 || !redirects.every(isHttpUrl)) {
      throw oauthError(400, 'invalid_redirect_uri', '"redirect_uris" must be a non-empty array of http(s) URLs without fragments.');
    }
    for (const redirect of redirects) {
      const refusal = this.#rules.refusal(redirect, here);
      if (refusal) throw oauthError(400, 'invalid_redirect_uri', `The redirect_uri ${refusal}`);
    }
    const name = typeof fields.client_name === 'string' ? fields.client_name.slice(0, 200) : undefined;
    const method = fields.token_endpoint_auth_method ?? 'client_secret_basic';
    if (method !== 'none' && method !== 'client_secret_basic' && method !== 'client_secret_post') {
      throw oauthError(400, 'invalid_client_metadata', `token_endpoint_auth_method "${String(method)}" is not supported; use none, client_secret_basic or client_secret_post.`);
    }
    const clientId = randomToken();
    const secret = method === 'none' ? undefined : randomToken();
    const record: ClientRecord = { client_id: clientId, redirect_uris: redirects, created: new Date(this.#now()).toISOString(), expires: this.#now() + UNCONFIRMED_CLIENT_MS, ...(name && { client_name: name }) };
    if (secret) record.secret_hash = await sha256(secret);
    await this.#storage.put(CLIENTS + clientId + '.json', JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    await this.#unconfirmed.sweepIfDue();
    return {
      client_id: clientId,
      ...(secret && { client_secret: secret, client_secret_expires_at: 0 }),
      client_id_issued_at: Math.floor(this.#now() / 1000),
      redirect_uris: redirects,
      ...(name && { client_name: name }),
      token_endpoint_auth_method: method,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    };
  }

  /** Why no client but the server's own may be sent to `uri` (its origin is the server's), or null. */
  refusal(uri: string, here: URL): string | null {
    return this.#rules.refusal(uri, here);
  }

  /**
   * Client credentials for an account (client_credentials grant); the secret is shown once, kept hashed.
   * 409 when the account holds the most allowed.
   */
  async createCredentials(accountId: string, name: string): Promise<{ clientId: string; secret: string }> {
    const clientId = 'cc_' + randomToken();
    const secret = randomToken();
    const record: ClientRecord = { client_id: clientId, client_name: name, redirect_uris: [], secret_hash: await sha256(secret), account: accountId, created: new Date(this.#now()).toISOString() };
    await this.#credentials.add(accountId, clientId, () => this.#storage.put(CLIENTS + clientId + '.json', JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' }));
    return { clientId, secret };
  }

  async listCredentials(accountId: string): Promise<{ clientId: string; name: string; created: string }[]> {
    const found = [];
    for (const clientId of await this.#credentials.names(accountId)) {
      const record = await this.#record(clientId);
      if (record) found.push({ clientId: record.client_id, name: record.client_name ?? '', created: record.created });
    }
    return found.sort((a, b) => a.created.localeCompare(b.created));
  }

  /** Removes an account's client credential; false when the account holds no such credential. */
  async revokeCredentials(accountId: string, clientId: string): Promise<boolean> {
    const record = CLIENT_ID.test(clientId) ? await this.#record(clientId) : null;
    if (!record || record.account !== accountId) return false;
    await this.#storage.delete(CLIENTS + clientId + '.json');
    await this.#credentials.remove(accountId, clientId);
    return true;
  }

  async #record(clientId: string): Promise<ClientRecord | null> {
    return (await this.#stored(clientId))?.record ?? null;
  }

  /** A registered client's record with its ETag; null when there is none, or its unconfirmed registration expired. */
  async #stored(clientId: string): Promise<{ record: ClientRecord; etag: string } | null> {
    const stored = await this.#storage.get(CLIENTS + clientId + '.json');
    if (!stored) return null;
    const record = JSON.parse(await new Response(stored.body).text()) as ClientRecord;
    return record.expires !== undefined && record.expires <= this.#now() ? null : { record, etag: stored.meta.etag };
  }

  /** A user allowed the client: a registration made at `/idp/reg` is kept from now on. */
  async confirm(clientId: string): Promise<void> {
    const stored = CLIENT_ID.test(clientId) ? await this.#stored(clientId) : null;
    if (!stored || stored.record.expires === undefined) return;
    const { expires: _, ...kept } = stored.record;
    await this.#storage.put(CLIENTS + clientId + '.json', JSON.stringify(kept), { contentType: 'application/json', ifMatch: stored.etag });
  }

  /**
   * The client a `client_id` names, asked at the server seen as `here`: the public client, the server's own
   * data browser, a Client ID Document (an https URL, dereferenced through the guarded outbound fetch), or one
   * registered here. Throws an OAuth `invalid_client` error.
   */
  async resolve(clientId: unknown, here: URL): Promise<Client> {
    if (typeof clientId !== 'string' || !clientId) throw oauthError(400, 'invalid_request', 'The request names no client_id.');
    if (clientId === PUBLIC_CLIENT) return { clientId, name: 'an application (public client)', redirectUris: null };
    const own = this.#rules.firstParty(clientId, here);
    if (own) return own;
    if (isHttpUrl(clientId)) {
      const refusal = this.#rules.refusal(clientId, here);
      if (refusal) throw oauthError(400, 'invalid_client', `The client_id ${refusal}`);
      return this.#fromDocument(clientId);
    }
    const record = CLIENT_ID.test(clientId) ? await this.#record(clientId) : null;
    if (!record) throw oauthError(401, 'invalid_client', `The client "${clientId}" is not known here.`);
    return {
      clientId,
      name: record.client_name || clientId,
      redirectUris: record.redirect_uris,
      ...(record.secret_hash && { secretHash: record.secret_hash }),
      ...(record.account && { accountId: record.account }),
    };
  }

  async #fromDocument(url: string): Promise<Client> {
    if (!this.#fetch) {
      throw oauthError(400, 'invalid_client', 'This server cannot dereference Client ID Documents on this runtime (no outbound fetch); register the client at the registration endpoint instead.');
    }
    let document: Record<string, unknown>;
    try {
      const response = await this.#fetch(url, { headers: { Accept: 'application/ld+json, application/json;q=0.9' } });
      if (!response.ok) throw new Error(`it answered ${response.status}`);
      const text = await response.text();
      if (text.length > MAX_DOCUMENT_BYTES) throw new Error('it is too large');
      document = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw oauthError(400, 'invalid_client', `The Client ID Document ${url} could not be read: ${error instanceof Error ? error.message : String(error)}.`);
    }
    if (document.client_id !== url) throw oauthError(400, 'invalid_client', `The Client ID Document at ${url} must name itself as "client_id".`);
    const redirects = document.redirect_uris;
    if (!Array.isArray(redirects) || !redirects.every(isHttpUrl)) throw oauthError(400, 'invalid_client', `The Client ID Document at ${url} has no valid "redirect_uris".`);
    return { clientId: url, name: typeof document.client_name === 'string' ? document.client_name : url, redirectUris: redirects };
  }
}

/** Checks a client's secret; public clients and documents have none to check. */
export function secretMatches(client: Client, secretHash: string | null): boolean {
  if (!client.secretHash) return true;
  return secretHash !== null && equalInConstantTime(client.secretHash, secretHash);
}
