/**
 * Third-party apps: registered by `POST /api/v1/apps` (Mastodon's way) with a secret, or, for remoteStorage
 * apps that never register, named by their origin (`https://app.example`), which then must be the origin of
 * their redirect URI (remoteStorage draft §10).
 */
import { HttpProblem } from '../http/problem.ts';
import { ExpiredRecords } from '../idp/expired-records.ts';
import { oauthError } from '../idp/oauth-error.ts';
import { equalInConstantTime, randomToken, sha256 } from '../idp/random.ts';
import type { StorageDriver } from '../storage/types.ts';
import { APPS, OUT_OF_BAND } from './paths.ts';
import { parseScopes } from './scopes.ts';

export interface App {
  clientId: string;
  name: string;
  /** Redirect URIs the app registered; null for an app named by its origin (any redirect on that origin). */
  redirectUris: readonly string[] | null;
  /** Scopes it registered: an authorization may ask for these (or finer ones) only; null for an origin app (any). */
  scopes: readonly string[] | null;
  website: string | null;
  /** SHA-256 of the client secret; absent for an origin app, which has none. */
  secretHash?: string;
}

interface AppRecord {
  client_id: string;
  name: string;
  redirect_uris: string[];
  scopes: string[];
  website: string | null;
  secret_hash: string;
  created: string;
  /** Until a user first allows the app (see UNCONFIRMED_APP_MS): when the registration is forgotten. */
  expires?: number;
}

/**
 * How long an app registered with `POST /api/v1/apps` is kept before a user first allows it, counted from its
 * registration or its last app token (client_credentials, which an app-only client asks for again as its
 * tokens end). Anyone may register, so registrations nobody uses are swept instead of piling up under
 * `/.server/` (issue 29); an app a user allowed is kept.
 */
export const UNCONFIRMED_APP_MS = 7 * 24 * 60 * 60 * 1000;

const CLIENT_ID = /^[A-Za-z0-9_-]{43}$/;
const MAX_REDIRECT_URIS = 10;
const MAX_TEXT = 2000;

const recordPath = (clientId: string) => `${APPS}${clientId}.json`;

function invalidApp(detail: string): HttpProblem {
  return new HttpProblem(422, detail, { type: 'invalid-app', extra: { error: detail } });
}

/** A redirect URI an app may register: the out-of-band value or an absolute URL without a fragment (custom schemes of native apps too). */
function isRedirectUri(value: string): boolean {
  if (value === OUT_OF_BAND) return true;
  if (value.length > MAX_TEXT || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.hash === '' && !['javascript:', 'data:', 'vbscript:', 'file:'].includes(url.protocol);
}

/** Mastodon sends `redirect_uris` as one string (several separated by white space or new lines) or, since 4.3, an array. */
function redirectUrisOf(value: unknown): string[] {
  const uris = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\s+/) : [];
  const strings = uris.filter((uri): uri is string => typeof uri === 'string' && uri !== '');
  if (strings.length === 0 || strings.length !== uris.filter((uri) => uri !== '').length) throw invalidApp('Validation failed: Redirect URI must be given ("redirect_uris", a string or an array of strings).');
  if (strings.length > MAX_REDIRECT_URIS) throw invalidApp(`Validation failed: at most ${MAX_REDIRECT_URIS} redirect URIs.`);
  const bad = strings.find((uri) => !isRedirectUri(uri));
  if (bad !== undefined) throw invalidApp(`Validation failed: Redirect URI "${bad.slice(0, 100)}" must be an absolute URI without a fragment, or ${OUT_OF_BAND}.`);
  return [...new Set(strings)];
}

function textOf(value: unknown, name: string, required: boolean): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw invalidApp(`Validation failed: Application name can't be blank ("${name}").`);
    return null;
  }
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw invalidApp(`Validation failed: "${name}" must be a string of at most ${MAX_TEXT} characters.`);
  return value;
}

/** An http(s) origin (`https://app.example`), the client_id a remoteStorage app uses; null for anything else. */
export function originClientId(clientId: string): string | null {
  if (!URL.canParse(clientId)) return null;
  const url = new URL(clientId);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.origin === clientId.replace(/\/$/, '') ? url.origin : null;
}

export class AppStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #unconfirmed: ExpiredRecords;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#now = now;
    this.#unconfirmed = new ExpiredRecords(storage, APPS, now, log, { lifetimeMs: UNCONFIRMED_APP_MS, expiryOptional: true });
  }

  /** `POST /api/v1/apps`: a new app with its secret (shown this once). */
  async register(fields: Record<string, unknown>): Promise<{ app: App; secret: string; record: AppRecord }> {
    const name = textOf(fields.client_name, 'client_name', true)!;
    const redirectUris = redirectUrisOf(fields.redirect_uris);
    const scopes = parseScopes(typeof fields.scopes === 'string' ? fields.scopes : undefined);
    const website = textOf(fields.website, 'website', false);
    const clientId = randomToken();
    const secret = randomToken();
    const created = this.#now();
    const record: AppRecord = { client_id: clientId, name, redirect_uris: redirectUris, scopes, website, secret_hash: await sha256(secret), created: new Date(created).toISOString(), expires: created + UNCONFIRMED_APP_MS };
    await this.#storage.put(recordPath(clientId), JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    await this.#unconfirmed.sweepIfDue();
    return { app: appOf(record), secret, record };
  }

  /** A registered app, or an origin app; `invalid_client` for anything else. */
  async resolve(clientId: string | undefined): Promise<App> {
    if (!clientId) throw oauthError(400, 'invalid_request', 'Send the client_id of the app.');
    const origin = originClientId(clientId);
    if (origin) return { clientId: origin, name: origin, redirectUris: null, scopes: null, website: origin };
    const stored = CLIENT_ID.test(clientId) ? await this.#stored(clientId) : null;
    if (!stored) throw oauthError(401, 'invalid_client', `The client_id ${clientId.slice(0, 100)} is not known: register the app with POST /api/v1/apps.`);
    return appOf(stored.record);
  }

  /** A user allowed the app: its registration is kept from now on. */
  async confirm(clientId: string): Promise<void> {
    const stored = CLIENT_ID.test(clientId) ? await this.#stored(clientId) : null;
    if (!stored || stored.record.expires === undefined) return;
    const { expires: _, ...kept } = stored.record;
    await this.#storage.put(recordPath(clientId), JSON.stringify(kept), { contentType: 'application/json', ifMatch: stored.etag });
  }

  /** The app got an app token: a registration no user allowed yet is kept for UNCONFIRMED_APP_MS from now. */
  async renew(clientId: string): Promise<void> {
    const stored = CLIENT_ID.test(clientId) ? await this.#stored(clientId) : null;
    if (!stored || stored.record.expires === undefined) return;
    // Rewritten at most once per half window, not on every token.
    if (stored.record.expires - this.#now() > UNCONFIRMED_APP_MS / 2) return;
    const renewed = { ...stored.record, expires: this.#now() + UNCONFIRMED_APP_MS };
    await this.#storage.put(recordPath(clientId), JSON.stringify(renewed), { contentType: 'application/json', ifMatch: stored.etag });
  }

  /** A registered app's record with its ETag; null when there is none, or its unconfirmed registration expired. */
  async #stored(clientId: string): Promise<{ record: AppRecord; etag: string } | null> {
    const stored = await this.#storage.get(recordPath(clientId));
    if (!stored) return null;
    const record = JSON.parse(await new Response(stored.body).text()) as AppRecord;
    return record.expires !== undefined && record.expires <= this.#now() ? null : { record, etag: stored.meta.etag };
  }
}

function appOf(record: AppRecord): App {
  return { clientId: record.client_id, name: record.name, redirectUris: record.redirect_uris, scopes: record.scopes, website: record.website, secretHash: record.secret_hash };
}

/** The client secret matches (compared as hashes, in constant time); an origin app has none and needs none. */
export async function secretMatches(app: App, secret: string | null): Promise<boolean> {
  if (!app.secretHash) return secret === null || secret === '';
  return secret !== null && equalInConstantTime(app.secretHash, await sha256(secret));
}

/** Whether `redirectUri` is one the app may be sent back to. */
export function redirectAllowed(app: App, redirectUri: string): boolean {
  if (app.redirectUris) return app.redirectUris.includes(redirectUri);
  return URL.canParse(redirectUri) && new URL(redirectUri).origin === app.clientId && new URL(redirectUri).hash === '';
}
