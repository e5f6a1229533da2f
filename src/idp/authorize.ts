/** The authorization endpoint: login, consent and the redirect with a code (OAuth 2.0 + PKCE, Solid-OIDC). */
import type { Account } from './accounts.ts';
import type { Client } from './clients.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { readForm } from './form.ts';
import { issuerFor } from './issuer.ts';
import { consentPage, loginPage, page } from './pages.ts';
import { ACCOUNT_PATH, AUTH_PATH } from './paths.ts';
import { checkCsrf, csrfFor } from './session.ts';
import { messageBox } from '../http/html.ts';
import { httpUrlOf } from '../http/http-url.ts';

/** The parameters of an authorization request that travel through the login and consent forms. */
const REQUEST_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce'] as const;

interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  state?: string;
  nonce?: string;
  /** The request's own fields, to carry through the forms. */
  fields: Record<string, string>;
}

export function requestFields(source: Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of REQUEST_FIELDS) if (source[name]) fields[name] = source[name].slice(0, 2000);
  return fields;
}

/** A page of this identity provider that sent the browser to log in (the OAuth consent of src/oauth/): a path under /idp/, never another site. */
function continuation(next: string | undefined): string | undefined {
  return next && next.startsWith('/idp/') && !/[\\\s]/.test(next) ? next : undefined;
}

/**
 * Where the browser goes after logging in (password, passkey or Nostr): back to the page that asked (`next`),
 * to the consent page of the authorization request the login form carried, or to the account page.
 */
export function afterLogin(fields: Record<string, string>): string {
  const next = continuation(fields.next);
  if (next) return next;
  const request = requestFields(fields);
  return request.client_id ? `${AUTH_PATH}?${new URLSearchParams(request)}` : ACCOUNT_PATH;
}

/** The client's redirect back with the answer (`code` or `error`), `state` and `iss` (RFC 9207). */
function redirectBack(issuer: string, redirectUri: string, answer: Record<string, string>, state: string | undefined): Response {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...answer, ...(state && { state }), iss: issuer })) target.searchParams.set(name, value);
  return new Response(null, { status: 303, headers: { Location: target.href, 'Cache-Control': 'no-store' } });
}

/** The page answering a request that cannot be sent back to any client (unknown client, bad redirect). */
function refusalPage(detail: string, status = 400): Response {
  return page('This login request cannot be answered', `${messageBox('error', detail)}<p>Go back to the application and try again, or tell its makers.</p>`, status);
}

/** Checks an authorization request; answers with the refusal (page or redirect) when it is not valid. */
async function validate(idp: IdpContext, request: Request, source: Record<string, string>): Promise<AuthorizationRequest | Response> {
  const fields = requestFields(source);
  let client: Client;
  try {
    client = await idp.clients.resolve(fields.client_id, new URL(request.url));
  } catch (error) {
    return refusalPage(error instanceof Error ? error.message : 'The client is not known.');
  }
  const redirectUri = fields.redirect_uri ?? (client.redirectUris?.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) return refusalPage('The request has no redirect_uri.');
  const allowed = client.redirectUris === null ? httpUrlOf(redirectUri) !== null : client.redirectUris.includes(redirectUri);
  if (!allowed) return refusalPage(`The redirect_uri ${redirectUri} is not one the client ${client.clientId} registered.`);
  // The public client and Client ID Documents vouch for their redirects themselves: the server's own origin is not theirs.
  const refusal = client.firstParty ? null : idp.clients.refusal(redirectUri, new URL(request.url));
  if (refusal) return refusalPage(`The redirect_uri ${refusal}`);
  // Errors go back only to a redirect the client registered: for the public client that would be an open redirect.
  const fail = (error: string, description: string) =>
    client.redirectUris === null ? refusalPage(description) : redirectBack(issuerFor(idp.config, request), redirectUri, { error, error_description: description }, fields.state);
  if (fields.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!fields.code_challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(fields.code_challenge)) return fail('invalid_request', 'PKCE is required: send a code_challenge (S256).');
  if (fields.code_challenge_method !== 'S256') return fail('invalid_request', 'The code_challenge_method must be S256.');
  const scope = fields.scope ?? '';
  if (!scope.split(' ').includes('openid')) return fail('invalid_scope', 'The scope must include openid (Solid-OIDC asks for "openid webid").');
  return { client, redirectUri, scope, codeChallenge: fields.code_challenge, state: fields.state, nonce: fields.nonce, fields: { ...fields, redirect_uri: redirectUri } };
}

function withCookies(response: Response, cookies: (string | null)[]): Response {
  for (const cookie of cookies) if (cookie) response.headers.append('Set-Cookie', cookie);
  return response;
}

function consent(idp: IdpContext, request: Request, authorization: AuthorizationRequest, account: Account, csrf: string, offerPasskey = false): Response {
  const body = consentPage({
    offerPasskey,
    csrf,
    request: authorization.fields,
    clientName: authorization.client.name,
    clientId: authorization.client.clientId,
    redirectUri: authorization.redirectUri,
    scope: authorization.scope,
    firstParty: authorization.client.firstParty ? (authorization.client.onPodHost ? 'pod-host' : 'server') : undefined,
    webId: webIdOf(idp.config, account, request),
  });
  return page(`Allow ${authorization.client.name}?`, body);
}

/** `GET /idp/auth`: the login page, or the consent page when the browser is logged in already. */
export async function showAuthorization(idp: IdpContext, request: Request): Promise<Response> {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const csrf = csrfFor(request);
  const session = await idp.sessions.current(request);
  if (!query.client_id) {
    if (session) return new Response(null, { status: 303, headers: { Location: ACCOUNT_PATH } });
    return withCookies(page('Log in', loginPage({ csrf: csrf.value, request: {} })), [csrf.setCookie]);
  }
  const authorization = await validate(idp, request, query);
  if (authorization instanceof Response) return authorization;
  if (session) return withCookies(consent(idp, request, authorization, session.account, csrf.value), [csrf.setCookie]);
  return withCookies(page('Log in', loginPage({ csrf: csrf.value, request: authorization.fields, clientName: authorization.client.name })), [csrf.setCookie]);
}

/** `POST /idp/auth`: the login form. Success leads to consent (or to the account page for a plain login). */
export async function submitLogin(idp: IdpContext, request: Request): Promise<Response> {
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const authorization = form.client_id ? await validate(idp, request, form) : null;
  if (authorization instanceof Response) return authorization;
  const account = await idp.accounts.login(form.email, form.password);
  if (!account) {
    const next = continuation(form.next);
    const view = { csrf: form.csrf!, request: authorization?.fields ?? {}, clientName: authorization?.client.name ?? (next && form.client_name), next, email: form.email, error: 'The email or the password is wrong.', errorField: 'password' };
    return page('Log in', loginPage(view), 401);
  }
  const session = (await idp.sessions.start(request, account)).setCookie;
  if (!authorization) return new Response(null, { status: 303, headers: { Location: afterLogin(form), 'Set-Cookie': session } });
  const offerPasskey = (await idp.passkeys.list(account.id)).length === 0;
  return withCookies(consent(idp, request, authorization, account, form.csrf!, offerPasskey), [session]);
}

/** `POST /idp/consent`: Allow sends the browser back with a code; Deny with `access_denied`. */
export async function submitConsent(idp: IdpContext, request: Request): Promise<Response> {
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const authorization = await validate(idp, request, form);
  if (authorization instanceof Response) return authorization;
  const session = await idp.sessions.current(request);
  if (!session) {
    const view = { csrf: form.csrf!, request: authorization.fields, clientName: authorization.client.name, error: 'Your session has ended; log in again.' };
    return page('Log in', loginPage(view), 401);
  }
  if (form.decision !== 'allow') return redirectBack(issuerFor(idp.config, request), authorization.redirectUri, { error: 'access_denied', error_description: 'The user did not allow the request.' }, authorization.state);
  const code = await idp.grants.codes.issue({
    clientId: authorization.client.clientId,
    redirectUri: authorization.redirectUri,
    codeChallenge: authorization.codeChallenge,
    accountId: session.account.id,
    scope: authorization.scope,
    authTime: session.authTime,
    epoch: session.account.epoch!,
    ...(authorization.nonce && { nonce: authorization.nonce }),
  });
  await idp.clients.confirm(authorization.client.clientId);
  idp.log(`idp: ${session.account.email} allowed ${authorization.client.clientId}`);
  return redirectBack(issuerFor(idp.config, request), authorization.redirectUri, { code }, authorization.state);
}

/** `POST /idp/logout`: ends the browser's session (its record too, so a copy of the cookie is of no use). */
export async function submitLogout(idp: IdpContext, request: Request): Promise<Response> {
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  return new Response(null, { status: 303, headers: { Location: AUTH_PATH, 'Set-Cookie': await idp.sessions.end(request) } });
}
