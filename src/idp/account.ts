/**
 * The account page (password, passkeys, client credentials, the apps allowed, the sessions, signing out
 * everywhere) and the JSON API for client credentials.
 */
import { readJsonBody } from '../http/body.ts';
import { messageBox } from '../http/html.ts';
import { HttpProblem, PROBLEM_TYPE_BASE } from '../http/problem.ts';
import type { Account } from './accounts.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { isForm, readForm } from './form.ts';
import { accountPage, page, type AccountView } from './pages.ts';
import { AUTH_PATH } from './paths.ts';
import { checkCsrf, csrfFor, type CurrentSession } from './session.ts';

const MAX_NAME_LENGTH = 100;
const toLogin = () => new Response(null, { status: 303, headers: { Location: AUTH_PATH } });

export async function renderAccount(idp: IdpContext, request: Request, session: CurrentSession, csrf: string, extra: Partial<AccountView> = {}, status = 200): Promise<Response> {
  const { account } = session;
  const passkeys = (await idp.passkeys.list(account.id)).map(({ id, name, created, lastUsed }) => ({ id, name, created, ...(lastUsed && { lastUsed }) }));
  const view: AccountView = {
    csrf,
    email: account.email,
    webId: webIdOf(idp.config, account, request),
    credentials: await idp.clients.listCredentials(account.id),
    passkeys,
    nostrKeys: await idp.nostrKeys.keysOf(account.id),
    nostrChallenge: await idp.nostrKeys.newChallenge(account.id),
    apps: await idp.apps.list(account.id),
    sessions: (await idp.sessions.list(account)).map(({ id, record }) => ({ id, agent: record.agent, created: record.created, current: id === session.id })),
    ...extra,
  };
  return page('Your account', accountPage(view), status);
}

export async function showAccount(idp: IdpContext, request: Request): Promise<Response> {
  const session = await idp.sessions.current(request);
  if (!session) return toLogin();
  const csrf = csrfFor(request);
  const response = await renderAccount(idp, request, session, csrf.value);
  if (csrf.setCookie) response.headers.append('Set-Cookie', csrf.setCookie);
  return response;
}

type AccountAction = (idp: IdpContext, request: Request, session: CurrentSession, form: Record<string, string>) => Promise<Response>;

/**
 * A form of the account page: CSRF-checked, for the logged-in account only. A refusal of what it asked (a
 * 4xx problem, such as a bound reached) shows on the page again, with the problem's status.
 */
export function accountForm(action: AccountAction) {
  return async (idp: IdpContext, request: Request): Promise<Response> => {
    const form = await readForm(request);
    checkCsrf(request, form.csrf);
    const session = await idp.sessions.current(request);
    if (!session) return toLogin();
    try {
      return await action(idp, request, session, form);
    } catch (error) {
      if (error instanceof HttpProblem && error.status < 500) return renderAccount(idp, request, session, form.csrf!, { error: error.message }, error.status);
      throw error;
    }
  };
}

/**
 * Gives the account a new epoch (and the new password, when one is given): every session, app authorization
 * and token of the old one ends, on this server at once; access tokens other servers hold expire within
 * the hour. Answers the account as it is now.
 */
async function endEverything(idp: IdpContext, account: Account, password?: string): Promise<Account> {
  const renewed = await idp.accounts.renew(account.id, { ...(password !== undefined && { password }), ending: (epoch) => idp.ended.end([epoch]) });
  await idp.sessions.forgetAll(account.id);
  return renewed;
}

export const changePassword = accountForm(async (idp, request, session, form) => {
  const { account } = session;
  if (!(await idp.accounts.login(account.email, form.current))) return renderAccount(idp, request, session, form.csrf!, { error: 'The current password is wrong.', errorField: 'current' }, 401);
  let changed: Account;
  try {
    changed = await endEverything(idp, account, form.password ?? '');
  } catch (error) {
    if (error instanceof HttpProblem && error.status < 500) return renderAccount(idp, request, session, form.csrf!, { error: error.message, ...(error.type === PROBLEM_TYPE_BASE + 'invalid-password' && { errorField: 'new' }) }, error.status);
    throw error;
  }
  // This browser stays logged in, in a session of the new epoch.
  const started = await idp.sessions.start(request, changed);
  const response = await renderAccount(idp, request, started.session, form.csrf!, { message: 'Your password has been changed. Every other session has ended, and so has every token your apps and scripts held: they must log in again.' });
  response.headers.append('Set-Cookie', started.setCookie);
  return response;
});

/** `POST /idp/account/sign-out-everywhere`: ends every session (this one too), app authorization and token of the account. */
export const signOutEverywhere = accountForm(async (idp, request, session) => {
  await endEverything(idp, session.account);
  const body = `${messageBox('status', 'You have been signed out everywhere: every session (this one too) has ended, and so has every token your apps and scripts held.')}
<p class="note">Client credentials you made stay until you revoke them on the account page.</p>
<div class="actions"><a class="button" href="${AUTH_PATH}">Log in again</a></div>`;
  return page('Signed out everywhere', body, 200, { 'Set-Cookie': idp.sessions.clear(request) });
});

/** `POST /idp/account/apps/revoke`: logs an app out (its authorization and every token of it). */
export const revokeAppForm = accountForm(async (idp, request, session, form) => {
  const revoked = await idp.apps.revoke(session.account.id, form.app ?? '');
  return renderAccount(idp, request, session, form.csrf!, revoked ? { message: 'The app has been logged out; its tokens have ended.' } : { error: 'There is no such app.' }, revoked ? 200 : 404);
});

/** `POST /idp/account/sessions/end`: ends one session (this browser's too, which then goes to the login page). */
export const endSessionForm = accountForm(async (idp, request, session, form) => {
  const ended = await idp.sessions.endOne(session.account.id, form.session ?? '');
  if (ended && form.session === session.id) return new Response(null, { status: 303, headers: { Location: AUTH_PATH, 'Set-Cookie': idp.sessions.clear(request) } });
  return renderAccount(idp, request, session, form.csrf!, ended ? { message: 'The session has ended.' } : { error: 'There is no such session.' }, ended ? 200 : 404);
});

/** Revokes a client credential and ends the access tokens it got. */
async function revokeCredential(idp: IdpContext, accountId: string, clientId: string): Promise<boolean> {
  if (!(await idp.clients.revokeCredentials(accountId, clientId))) return false;
  await idp.ended.end([clientId]);
  return true;
}

function credentialName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME_LENGTH) {
    throw new HttpProblem(400, `Give the credential a "name" of 1 to ${MAX_NAME_LENGTH} characters.`, { type: 'invalid-credential-name' });
  }
  return name.trim();
}

export const createCredentialForm = accountForm(async (idp, request, session, form) => {
  let name: string;
  try {
    name = credentialName(form.name);
  } catch (error) {
    return renderAccount(idp, request, session, form.csrf!, { error: (error as Error).message, errorField: 'cred-name' }, 400);
  }
  const created = await idp.clients.createCredentials(session.account.id, name);
  return renderAccount(idp, request, session, form.csrf!, { created }, 201);
});

export const revokeCredentialForm = accountForm(async (idp, request, session, form) => {
  const revoked = await revokeCredential(idp, session.account.id, form.client_id ?? '');
  return renderAccount(idp, request, session, form.csrf!, revoked ? { message: 'The credential has been revoked; its tokens have ended.' } : { error: 'There is no such credential.' }, revoked ? 200 : 404);
});

export const removePasskeyForm = accountForm(async (idp, request, session, form) => {
  const removed = await idp.passkeys.remove(session.account.id, form.id ?? '');
  return renderAccount(idp, request, session, form.csrf!, removed ? { message: 'The passkey has been removed.' } : { error: 'There is no such passkey.' }, removed ? 200 : 404);
});

/** The account named by `Authorization: Basic` with email and password, or by JSON `email` and `password`. */
async function accountFromRequest(idp: IdpContext, request: Request, fields: Record<string, unknown>): Promise<Account> {
  let email = fields.email;
  let password = fields.password;
  const header = request.headers.get('authorization');
  if (header && /^basic\s/i.test(header)) {
    try {
      const decoded = new TextDecoder().decode(Uint8Array.from(atob(header.slice(6).trim()), (c) => c.charCodeAt(0)));
      const colon = decoded.indexOf(':');
      [email, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    } catch {
      throw new HttpProblem(400, 'The Basic authentication is not valid base64.', { type: 'invalid-login' });
    }
  }
  const account = await idp.accounts.login(email, password);
  if (!account) {
    // No Basic challenge: a browser would offer to remember the password and send it along with other sites' requests.
    throw new HttpProblem(401, 'Log in with the email and password of the account (JSON fields or Basic authentication).', { type: 'invalid-login' });
  }
  return account;
}

/** `POST /idp/client-credentials` (JSON): makes client credentials; the secret is in this answer only. */
export async function createCredentialJson(idp: IdpContext, request: Request): Promise<Response> {
  if (isForm(request)) throw new HttpProblem(415, 'Send JSON: {"email", "password", "name"}.', { type: 'unsupported-media-type' });
  const body = request.body ? await readJsonBody(request, 8 * 1024, 'The body') : {};
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const account = await accountFromRequest(idp, request, fields);
  const name = credentialName(fields.name);
  const { clientId, secret } = await idp.clients.createCredentials(account.id, name);
  return Response.json({ client_id: clientId, client_secret: secret, name, webid: webIdOf(idp.config, account, request) }, { status: 201, headers: { 'Cache-Control': 'no-store' } });
}

/** `GET /idp/client-credentials` (Basic): the account's client credentials, without secrets. */
export async function listCredentialsJson(idp: IdpContext, request: Request): Promise<Response> {
  const account = await accountFromRequest(idp, request, {});
  const credentials = await idp.clients.listCredentials(account.id);
  return Response.json(credentials.map((c) => ({ client_id: c.clientId, name: c.name, created: c.created })), { headers: { 'Cache-Control': 'no-store' } });
}

/** `DELETE /idp/client-credentials/<client_id>` (Basic): revokes one. */
export async function revokeCredentialJson(idp: IdpContext, request: Request, clientId: string): Promise<Response> {
  const account = await accountFromRequest(idp, request, {});
  if (!(await revokeCredential(idp, account.id, clientId))) throw new HttpProblem(404, 'This account holds no such client credential.', { type: 'no-credential' });
  return new Response(null, { status: 204 });
}
