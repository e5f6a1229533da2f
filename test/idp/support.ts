import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { expect } from 'vitest';
import { toBase64Url } from '../../src/http/base64url.ts';
import { BASE, makeApp, type TestApp } from '../support/app.ts';
import type { Platform } from '../../src/platform.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

export const PASSWORD = 'correct horse battery';

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});

/** An app with --idp and one account (alice) with her pod. */
export async function idpApp(flags: Record<string, unknown> = {}, platform: Partial<Platform> = {}): Promise<TestApp> {
  const app = makeApp({ idp: true, ...flags }, new MemoryDriver(), platform);
  const created = await app.request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
  if (created.status !== 201) throw new Error(`alice: ${created.status} ${await created.text()}`);
  return app;
}

/** A DPoP key pair and a way to sign proofs with it. */
export async function dpopKey(): Promise<{ jwk: JWK; thumbprint: string; proof(method: string, url: string, extra?: Record<string, unknown>): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return {
    jwk,
    thumbprint: await calculateJwkThumbprint(jwk),
    proof: (method, url, extra = {}) => signProof(privateKey, jwk, { htm: method, htu: url, ...extra }),
  };
}

export function signProof(key: CryptoKey, jwk: JWK, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
    .sign(key);
}

/** A PKCE verifier and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/** The cookies a response sets, as one Cookie header value (merged with earlier ones). */
export function cookiesFrom(response: Response, earlier = ''): string {
  const jar = new Map(earlier.split('; ').filter(Boolean).map((pair) => [pair.split('=')[0]!, pair] as const));
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    jar.set(pair.split('=')[0]!, pair);
  }
  return [...jar.values()].join('; ');
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in:\n${html}`);
  return match[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export { BASE };

export const REDIRECT = 'https://app.example/callback';
export const TOKEN_URL = `${BASE}/idp/token`;

export const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

/** Registers a client dynamically (RFC 7591). */
export async function registerClient(app: Pick<TestApp, 'request'>, metadata: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
  const response = await app.request('/idp/reg', json({ redirect_uris: [REDIRECT], client_name: 'Test App', ...metadata }));
  expect(response.status).toBe(201);
  return response.json();
}

/** Walks the login and consent pages as a browser would, and returns the redirect back to the client. */
export async function authorize(app: Pick<TestApp, 'request'>, clientId: string, challenge: string, clientName = 'Test App'): Promise<URL> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid webid offline_access',
    state: 'st4te',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nonce: 'n0nce',
  });
  const login = await app.request(`/idp/auth?${query}`);
  expect(login.status).toBe(200);
  let cookies = cookiesFrom(login);
  const loginHtml = await login.text();
  expect(loginHtml).toContain(clientName);
  const fields = Object.fromEntries([...query.keys(), 'csrf'].map((name) => [name, hiddenField(loginHtml, name)]));
  const consent = await app.request('/idp/auth', form({ ...fields, email: 'alice@example.org', password: PASSWORD }, { cookie: cookies }));
  expect(consent.status).toBe(200);
  cookies = cookiesFrom(consent, cookies);
  const consentHtml = await consent.text();
  expect(consentHtml).toContain(clientName);
  expect(consentHtml).toContain(REDIRECT);
  const back = await app.request('/idp/consent', form({ ...fields, decision: 'allow' }, { cookie: cookies }));
  expect(back.status).toBe(303);
  return new URL(back.headers.get('location')!);
}

/** A logged-in browser: its cookies and the CSRF value of its forms. */
export interface Browser {
  cookies: string;
  csrf: string;
}

/** Logs alice in on the login page, as a browser with its own cookies. */
export async function logIn(app: Pick<TestApp, 'request'>, password = PASSWORD, userAgent = 'Test Browser'): Promise<Browser> {
  const shown = await app.request('/idp/auth', { headers: { 'user-agent': userAgent } });
  const cookies = cookiesFrom(shown);
  const csrf = hiddenField(await shown.text(), 'csrf');
  const loggedIn = await app.request('/idp/auth', form({ csrf, email: 'alice@example.org', password }, { cookie: cookies, 'user-agent': userAgent }));
  expect(loggedIn.status).toBe(303);
  return { cookies: cookiesFrom(loggedIn, cookies), csrf };
}

/** A Solid app of alice's, logged in through the authorization-code flow: its DPoP key and tokens. */
export interface SolidAppLogin {
  client: { client_id: string; client_secret?: string };
  key: Awaited<ReturnType<typeof dpopKey>>;
  tokens: { access_token: string; refresh_token: string };
  /** A token request of this app (its client authentication and a fresh proof of its key). */
  token(fields: Record<string, string>): Promise<Response>;
  /** A GET of a resource with its access token (or `accessToken`) and a fresh proof. */
  get(path: string, accessToken?: string): Promise<Response>;
}

/** Registers a confidential client and logs it in (openid webid offline_access) with a DPoP key; its proofs are made at `now`. */
export async function solidAppLogin(app: TestApp, now: () => number = Date.now): Promise<SolidAppLogin> {
  const client = await registerClient(app);
  const key = await dpopKey();
  const { verifier, challenge } = await pkce();
  const back = await authorize(app, client.client_id, challenge);
  const proof = (method: string, url: string) => key.proof(method, url, { iat: Math.floor(now() / 1000) });
  const token = async (fields: Record<string, string>) =>
    app.request('/idp/token', form(fields, { authorization: basic(client.client_id, client.client_secret!), dpop: await proof('POST', TOKEN_URL) }));
  const answer = await token({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(answer.status).toBe(200);
  const tokens = await answer.json();
  return {
    client,
    key,
    tokens,
    token,
    get: async (path, accessToken = tokens.access_token) => app.request(path, { headers: { authorization: `DPoP ${accessToken}`, dpop: await proof('GET', BASE + path) } }),
  };
}
