import { expect } from 'vitest';
import type { TestApp } from '../support/app.ts';

/** An app in this process or a real server: anything that answers a path. */
type Server = Pick<TestApp, 'request'>;
import { cookiesFrom, form, hiddenField, json, PASSWORD } from '../idp/support.ts';

export const REDIRECT = 'https://app.example/callback';
export const OOB = 'urn:ietf:wg:oauth:2.0:oob';

export interface RegisteredApp {
  client_id: string;
  client_secret: string;
}

/** `POST /api/v1/apps` as a Mastodon client sends it. */
export async function registerApp(app: Server, fields: Record<string, unknown> = {}): Promise<RegisteredApp> {
  const response = await app.request('/api/v1/apps', json({ client_name: 'Test App', redirect_uris: `${REDIRECT}\n${OOB}`, scopes: 'read write follow', website: 'https://app.example', ...fields }));
  expect(response.status).toBe(200);
  return response.json();
}

/**
 * Walks `/oauth/authorize` as a browser would: the redirect to the pages under /idp/, the login form (the
 * identity provider's), back to the consent page, and Allow (or Deny). Answers the last response.
 */
export async function authorize(app: Server, query: Record<string, string>, options: { decision?: string; password?: string } = {}): Promise<Response> {
  const start = await app.request(`/oauth/authorize?${new URLSearchParams(query)}`, { headers: { accept: 'text/html' } });
  expect(start.status).toBe(303);
  const pagesUrl = start.headers.get('location')!;
  expect(pagesUrl).toMatch(/^\/idp\/oauth\/authorize\?/);
  const login = await app.request(pagesUrl);
  expect(login.status).toBe(200);
  let cookies = cookiesFrom(login);
  const loginHtml = await login.text();
  const csrf = hiddenField(loginHtml, 'csrf');
  const next = hiddenField(loginHtml, 'next');
  const loggedIn = await app.request('/idp/auth', form({ csrf, next, client_name: hiddenField(loginHtml, 'client_name'), email: 'alice@example.org', password: options.password ?? PASSWORD }, { cookie: cookies }));
  if (loggedIn.status !== 303) return loggedIn;
  expect(loggedIn.headers.get('location')).toBe(pagesUrl);
  cookies = cookiesFrom(loggedIn, cookies);
  const consent = await app.request(loggedIn.headers.get('location')!, { headers: { cookie: cookies } });
  expect(consent.status).toBe(200);
  const consentHtml = await consent.text();
  const fields = Object.fromEntries([...consentHtml.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1]!, match[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"')]));
  return app.request('/idp/oauth/authorize', form({ ...fields, decision: options.decision ?? 'allow' }, { cookie: cookies }));
}

/** The code of an allowed out-of-band authorization (shown on the page). */
export async function outOfBandCode(app: Server, client: RegisteredApp, extra: Record<string, string> = {}): Promise<string> {
  const answer = await authorize(app, { client_id: client.client_id, redirect_uri: OOB, response_type: 'code', scope: 'read write', ...extra });
  expect(answer.status).toBe(200);
  const code = /<code id="code">([^<]+)<\/code>/.exec(await answer.text())?.[1];
  expect(code).toBeDefined();
  return code!;
}

export const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

export async function tokenRequest(app: Server, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return app.request('/oauth/token', form(fields, headers));
}

export const bearer = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
