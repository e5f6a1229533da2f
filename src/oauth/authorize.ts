/**
 * The authorization endpoint for third-party apps (RFC 6749 §4.1 code with optional PKCE, §4.2 implicit):
 * `/oauth/authorize` checks the request and sends the browser to the login and consent pages under /idp/,
 * where the identity provider's session is; Allow sends it back with a code (or shows the code for the
 * out-of-band redirect URI), or with a token in the fragment (`response_type=token`, remoteStorage apps).
 */
import { webIdOf } from '../idp/context.ts';
import { readForm } from '../idp/form.ts';
import { oauthError } from '../idp/oauth-error.ts';
import { loginPage, page } from '../idp/pages.ts';
import { checkCsrf, csrfFor } from '../idp/session.ts';
import { HttpProblem } from '../http/problem.ts';
import { escapeHtml, messageBox } from '../http/html.ts';
import { onOwnHost } from '../pods/own-hosts.ts';
import { redirectAllowed, type App } from './apps.ts';
import type { OAuthContext } from './context.ts';
import { appConsentPage, outOfBandCodePage } from './pages.ts';
import { CONSENT_PATH, OUT_OF_BAND } from './paths.ts';
import { coveredBy, parseScopes } from './scopes.ts';

const REQUEST_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

interface AppAuthorization {
  app: App;
  redirectUri: string;
  responseType: 'code' | 'token';
  scopes: string[];
  state?: string;
  codeChallenge?: string;
  /** The request's own fields, carried through the login and consent forms. */
  fields: Record<string, string>;
}

function requestFields(source: Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of REQUEST_FIELDS) if (source[name]) fields[name] = source[name].slice(0, 2000);
  return fields;
}

const noStore = { 'Cache-Control': 'no-store' };

/**
 * A request that cannot go back to the app (unknown app, redirect URI it did not register): never redirected,
 * since that would be an open redirect. A page for browsers, problem+json for anything else.
 */
function refusal(request: Request, status: number, error: string, description: string): Response {
  if ((request.headers.get('accept') ?? '').includes('text/html')) {
    return page('This authorization request cannot be answered', `${messageBox('error', description)}<p class="note">Error code: <code>${escapeHtml(error)}</code></p><p>Go back to the app and try again, or tell its makers.</p>`, status);
  }
  const response = oauthError(status, error, description).toResponse();
  response.headers.set('Cache-Control', 'no-store');
  return response;
}

/** Back to the app: in the query for a code, in the fragment for a token (RFC 6749 §4.2.2, so it never reaches a server). */
function redirectBack(redirectUri: string, responseType: 'code' | 'token', answer: Record<string, string>, state: string | undefined): Response {
  const target = new URL(redirectUri);
  const parameters = { ...answer, ...(state && { state }) };
  if (responseType === 'token') target.hash = new URLSearchParams(parameters).toString();
  else for (const [name, value] of Object.entries(parameters)) target.searchParams.set(name, value);
  return new Response(null, { status: 303, headers: { Location: target.href, ...noStore } });
}

/** Checks an authorization request; answers with the refusal (a page, a problem or a redirect with `error`) when it is not valid. */
async function validate(oauth: OAuthContext, request: Request, source: Record<string, string>): Promise<AppAuthorization | Response> {
  const fields = requestFields(source);
  let app: App;
  try {
    app = await oauth.apps.resolve(fields.client_id);
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    return refusal(request, error.status, error.status === 401 ? 'invalid_client' : 'invalid_request', error.message);
  }
  const redirectUri = fields.redirect_uri ?? (app.redirectUris?.length === 1 ? app.redirectUris[0] : undefined);
  if (!redirectUri) return refusal(request, 400, 'invalid_request', 'The request has no redirect_uri.');
  if (!redirectAllowed(app, redirectUri)) {
    const registered = app.redirectUris ? `one the app ${app.name} registered` : `on the app's origin ${app.clientId}`;
    return refusal(request, 400, 'invalid_redirect_uri', `The redirect_uri ${redirectUri.slice(0, 200)} is not ${registered}.`);
  }
  const here = new URL(request.url);
  const onServer = (uri: string) => URL.canParse(uri) && onOwnHost(oauth.config, new URL(uri), here);
  if (onServer(app.clientId) || onServer(redirectUri)) {
    const what = onServer(app.clientId) ? `The app ${app.clientId.slice(0, 200)}` : `The redirect_uri ${redirectUri.slice(0, 200)}`;
    return refusal(request, 400, onServer(app.clientId) ? 'invalid_client' : 'invalid_redirect_uri', `${what} is on this server, where pods keep their pages: a token sent there would reach a page a pod owner wrote. An app needs an origin of its own.`);
  }
  const outOfBand = redirectUri === OUT_OF_BAND;
  const responseType = fields.response_type === 'token' ? 'token' : 'code';
  const fail = (error: string, description: string) =>
    outOfBand ? refusal(request, 400, error, description) : redirectBack(redirectUri, responseType, { error, error_description: description }, fields.state);
  if (fields.response_type !== 'code' && fields.response_type !== 'token') return fail('unsupported_response_type', 'The response_type must be code or token.');
  if (responseType === 'token' && outOfBand) return fail('invalid_request', `The token of response_type=token goes in a redirect's fragment: ${OUT_OF_BAND} cannot take it.`);
  let scopes: string[];
  try {
    scopes = parseScopes(fields.scope);
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    return fail('invalid_scope', error.message);
  }
  const beyond = app.scopes ? scopes.filter((scope) => !coveredBy(scope, app.scopes!)) : [];
  if (beyond.length > 0) return fail('invalid_scope', `The app registered the scopes "${app.scopes!.join(' ')}" only, not ${beyond.join(', ')}.`);
  if (fields.code_challenge !== undefined) {
    if (responseType !== 'code' || !/^[A-Za-z0-9_-]{43,128}$/.test(fields.code_challenge)) return fail('invalid_request', 'The code_challenge must be 43 to 128 base64url characters, with response_type=code.');
    if (fields.code_challenge_method !== 'S256') return fail('invalid_request', 'The code_challenge_method must be S256.');
  }
  return { app, redirectUri, responseType, scopes, state: fields.state, codeChallenge: fields.code_challenge, fields: { ...fields, redirect_uri: redirectUri } };
}

function withCookie(response: Response, cookie: string | null): Response {
  if (cookie) response.headers.append('Set-Cookie', cookie);
  return response;
}

/** `GET` and `POST /oauth/authorize`: a valid request goes on to the login and consent pages (under /idp/, for the session cookie). */
export async function startAuthorization(oauth: OAuthContext, request: Request): Promise<Response> {
  const source = request.method === 'POST' ? await readForm(request) : Object.fromEntries(new URL(request.url).searchParams);
  const authorization = await validate(oauth, request, source);
  if (authorization instanceof Response) return authorization;
  return new Response(null, { status: 303, headers: { Location: `${CONSENT_PATH}?${new URLSearchParams(authorization.fields)}`, ...noStore } });
}

/** `GET /idp/oauth/authorize`: the identity provider's login page (coming back here), or the consent page. */
export async function showAppConsent(oauth: OAuthContext, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const authorization = await validate(oauth, request, Object.fromEntries(url.searchParams));
  if (authorization instanceof Response) return authorization;
  const csrf = csrfFor(request);
  const session = await oauth.sessions.current(request);
  if (!session) {
    const login = loginPage({ csrf: csrf.value, request: {}, next: url.pathname + url.search, clientName: authorization.app.name });
    return withCookie(page('Log in', login), csrf.setCookie);
  }
  return withCookie(consent(request, authorization, webIdOf(oauth.config, session.account, request), csrf.value), csrf.setCookie);
}

function consent(request: Request, authorization: AppAuthorization, webId: string, csrf: string): Response {
  const body = appConsentPage({
    csrf,
    request: authorization.fields,
    appName: authorization.app.name,
    website: authorization.app.website,
    scopes: authorization.scopes,
    redirectUri: authorization.redirectUri === OUT_OF_BAND ? null : authorization.redirectUri,
    webId,
  });
  return page(`Allow ${authorization.app.name}?`, body);
}

/** `POST /idp/oauth/authorize`: Allow answers with a code (or a token for response_type=token), Deny with `access_denied`. */
export async function submitAppConsent(oauth: OAuthContext, request: Request): Promise<Response> {
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const authorization = await validate(oauth, request, form);
  if (authorization instanceof Response) return authorization;
  const session = await oauth.sessions.current(request);
  if (!session) {
    const next = `${CONSENT_PATH}?${new URLSearchParams(authorization.fields)}`;
    return page('Log in', loginPage({ csrf: form.csrf!, request: {}, next, clientName: authorization.app.name, error: 'Your session has ended; log in again.' }), 401);
  }
  const { app, redirectUri, responseType, scopes, state } = authorization;
  const outOfBand = redirectUri === OUT_OF_BAND;
  if (form.decision !== 'allow') {
    if (outOfBand) return page('Not allowed', `<p class="lead">You did not allow ${escapeHtml(app.name)}; it got nothing.</p><p>You can close this page.</p>`, 403);
    return redirectBack(redirectUri, responseType, { error: 'access_denied', error_description: 'The user did not allow the request.' }, state);
  }
  oauth.log(`oauth: ${session.account.email} allowed ${app.name} (${app.clientId}) ${scopes.join(' ')}`);
  await oauth.apps.confirm(app.clientId);
  const grant = { clientId: app.clientId, accountId: session.account.id, epoch: session.account.epoch!, scopes };
  if (responseType === 'token') {
    const issued = await oauth.tokens.authorize(grant, app.name, false);
    return redirectBack(redirectUri, 'token', { access_token: issued.accessToken, token_type: 'bearer', expires_in: String(issued.expiresIn), scope: scopes.join(' ') }, state);
  }
  const code = await oauth.tokens.codes.issue({ ...grant, redirectUri, ...(authorization.codeChallenge && { codeChallenge: authorization.codeChallenge, codeChallengeMethod: 'S256' as const }) });
  if (outOfBand) return page('Authorization code', outOfBandCodePage(app.name, code));
  return redirectBack(redirectUri, 'code', { code }, state);
}
