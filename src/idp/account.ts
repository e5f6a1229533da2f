/** The account page (password, client credentials) and the JSON API for client credentials. */
import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import type { Account } from './accounts.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { isForm, readForm } from './form.ts';
import { accountPage, page, type AccountView } from './pages.ts';
import { AUTH_PATH } from './paths.ts';
import { checkCsrf, csrfFor } from './session.ts';

const MAX_NAME_LENGTH = 100;
const toLogin = () => new Response(null, { status: 303, headers: { Location: AUTH_PATH } });

async function render(idp: IdpContext, request: Request, account: Account, csrf: string, extra: Partial<AccountView> = {}, status = 200): Promise<Response> {
  const passkeys = (await idp.passkeys.list(account.id)).map(({ id, name, created, lastUsed }) => ({ id, name, created, ...(lastUsed && { lastUsed }) }));
  const view: AccountView = {
    csrf,
    email: account.email,
    webId: webIdOf(idp.config, account, request),
    credentials: await idp.clients.listCredentials(account.id),
    passkeys,
    nostrKeys: await idp.nostrKeys.keysOf(account.id),
    nostrChallenge: await idp.nostrKeys.newChallenge(account.id),
    ...extra,
  };
  return page('Your account', accountPage(view), status, {}, true);
}

export async function showAccount(idp: IdpContext, request: Request): Promise<Response> {
  const session = await idp.sessions.current(request);
  if (!session) return toLogin();
  const csrf = csrfFor(request);
  const response = await render(idp, request, session.account, csrf.value);
  if (csrf.setCookie) response.headers.append('Set-Cookie', csrf.setCookie);
  return response;
}

type AccountAction = (idp: IdpContext, request: Request, account: Account, form: Record<string, string>) => Promise<Response>;

/** A form of the account page: CSRF-checked, for the logged-in account only. */
export function accountForm(action: AccountAction) {
  return async (idp: IdpContext, request: Request): Promise<Response> => {
    const form = await readForm(request);
    checkCsrf(request, form.csrf);
    const session = await idp.sessions.current(request);
    if (!session) return toLogin();
    return action(idp, request, session.account, form);
  };
}

export const changePassword = accountForm(async (idp, request, account, form) => {
  if (!(await idp.accounts.login(account.email, form.current))) return render(idp, request, account, form.csrf!, { error: 'The current password is wrong.' }, 401);
  try {
    await idp.accounts.changePassword(account.id, form.password ?? '');
  } catch (error) {
    if (error instanceof HttpProblem && error.status < 500) return render(idp, request, account, form.csrf!, { error: error.message }, error.status);
    throw error;
  }
  const changed = (await idp.accounts.get(account.id))!;
  const response = await render(idp, request, changed, form.csrf!, { message: 'Your password has been changed; other sessions have ended.' });
  response.headers.append('Set-Cookie', await idp.sessions.start(request, changed));
  return response;
});

function credentialName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME_LENGTH) {
    throw new HttpProblem(400, `Give the credential a "name" of 1 to ${MAX_NAME_LENGTH} characters.`, { type: 'invalid-credential-name' });
  }
  return name.trim();
}

export const createCredentialForm = accountForm(async (idp, request, account, form) => {
  let name: string;
  try {
    name = credentialName(form.name);
  } catch (error) {
    return render(idp, request, account, form.csrf!, { error: (error as Error).message }, 400);
  }
  const created = await idp.clients.createCredentials(account.id, name);
  return render(idp, request, account, form.csrf!, { created }, 201);
});

export const revokeCredentialForm = accountForm(async (idp, request, account, form) => {
  const revoked = await idp.clients.revokeCredentials(account.id, form.client_id ?? '');
  return render(idp, request, account, form.csrf!, revoked ? { message: 'The credential has been revoked.' } : { error: 'There is no such credential.' }, revoked ? 200 : 404);
});

export const removePasskeyForm = accountForm(async (idp, request, account, form) => {
  const removed = await idp.passkeys.remove(account.id, form.id ?? '');
  return render(idp, request, account, form.csrf!, removed ? { message: 'The passkey has been removed.' } : { error: 'There is no such passkey.' }, removed ? 200 : 404);
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
  if (!(await idp.clients.revokeCredentials(account.id, clientId))) throw new HttpProblem(404, 'This account holds no such client credential.', { type: 'no-credential' });
  return new Response(null, { status: 204 });
}
