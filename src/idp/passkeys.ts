/**
 * Passkeys (WebAuthn) for accounts of the identity provider, with `@simplewebauthn/server`: the account page
 * (and the consent page after a password login) registers them, the login page logs in with one. The pages'
 * scripts call these JSON endpoints; every call carries the CSRF value of the pages.
 */
import { readJsonBody } from '../http/body.ts';
import { fromBase64Url, toBase64Url } from '../http/base64url.ts';
import { HttpProblem } from '../http/problem.ts';
import type { Account } from './accounts.ts';
import { afterLogin } from './authorize.ts';
import type { IdpContext } from './context.ts';
import type { PasskeyChallenge } from './grants.ts';
import { issuerFor } from './issuer.ts';
import type { Passkey } from './passkey-store.ts';
import { sha256 } from './random.ts';
import { checkCsrf, readCsrfCookie } from './session.ts';

const MAX_BODY_BYTES = 16 * 1024;
/** Credential IDs are at most 1023 bytes (WebAuthn §5.1): 1364 base64url characters. */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{16,1364}$/;
const MAX_NAME_LENGTH = 100;
const TIMEOUT_MS = 4 * 60_000;

/** Loaded with the first passkey request: a server without passkey users never needs it. */
const webauthn = () => import('@simplewebauthn/server');

/**
 * The relying party is the issuer: `--idp-issuer` when given, else the origin the request came to (which
 * `--base-url` fixes). Passkeys are bound to its host name, so they keep working whatever name a request used
 * only when the issuer is fixed; the login pages must then be reached at the issuer's origin.
 */
function relyingParty(idp: IdpContext, request: Request): { id: string; origin: string; name: string } {
  const issuer = new URL(issuerFor(idp.config, request));
  return { id: issuer.hostname, origin: issuer.origin, name: issuer.host };
}

/** base64url to the `Uint8Array<ArrayBuffer>` the library's types ask for. */
const bytesOf = (text: string) => new Uint8Array(fromBase64Url(text));

const refuse = (detail: string, status = 401) => new HttpProblem(status, detail, { type: 'invalid-passkey' });
const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });

async function readBody(request: Request): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, MAX_BODY_BYTES, 'The body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpProblem(400, 'The body must be a JSON object.', { type: 'invalid-passkey-request' });
  checkCsrf(request, (body as Record<string, unknown>).csrf);
  return body as Record<string, unknown>;
}

/** The browser binding of a challenge: the SHA-256 of its CSRF cookie (checked to be present by `checkCsrf`). */
const browserOf = (request: Request) => sha256(readCsrfCookie(request)!);

/** The credential the browser sent (`credential.toJSON()`), checked for the fields that are read before verification. */
function credentialOf(body: Record<string, unknown>): { id: string; response: Record<string, unknown>; raw: Record<string, unknown> } {
  const credential = body.credential;
  if (typeof credential !== 'object' || credential === null) throw new HttpProblem(400, 'Send the "credential" the browser made (credential.toJSON()).', { type: 'invalid-passkey-request' });
  const raw = credential as Record<string, unknown>;
  if (typeof raw.id !== 'string' || !CREDENTIAL_ID.test(raw.id) || raw.rawId !== raw.id || typeof raw.response !== 'object' || raw.response === null) {
    throw new HttpProblem(400, 'The credential has no valid "id", "rawId" or "response".', { type: 'invalid-passkey-request' });
  }
  return { id: raw.id, response: raw.response as Record<string, unknown>, raw };
}

/** Takes the challenge the browser signed out of its client data and uses it up: it never counts twice. */
async function consumeChallenge(idp: IdpContext, request: Request, response: Record<string, unknown>, purpose: PasskeyChallenge['purpose']): Promise<{ challenge: string; grant: PasskeyChallenge }> {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(new TextDecoder().decode(fromBase64Url(response.clientDataJSON as string))) as { challenge?: unknown }).challenge;
  } catch {
    throw new HttpProblem(400, 'The credential has no readable clientDataJSON.', { type: 'invalid-passkey-request' });
  }
  const grant = typeof challenge === 'string' ? await idp.grants.passkeyChallenges.redeem(challenge) : null;
  if (!grant || grant.purpose !== purpose || grant.browser !== (await browserOf(request))) {
    throw refuse('The passkey answered a challenge that is unknown, used already, expired, or not issued to this browser. Try again.');
  }
  return { challenge: challenge as string, grant };
}

/** The string members of a JSON object (the authorization request the login page carried), else nothing. */
function stringsOf(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function passkeyName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME_LENGTH) {
    throw new HttpProblem(400, `Give the passkey a "name" of 1 to ${MAX_NAME_LENGTH} characters.`, { type: 'invalid-passkey-name' });
  }
  return name.trim();
}

async function loggedIn(idp: IdpContext, request: Request): Promise<Account> {
  const session = await idp.sessions.current(request);
  if (!session) throw new HttpProblem(401, 'Log in first (the session has ended or never began).', { type: 'no-session' });
  return session.account;
}

/** `POST /idp/passkeys/registration-options`: options for `navigator.credentials.create`, for the logged-in account. */
export async function registrationOptions(idp: IdpContext, request: Request): Promise<Response> {
  await readBody(request);
  const account = await loggedIn(idp, request);
  const existing = await idp.passkeys.list(account.id);
  // Said before the browser asks the user for a passkey, not only when it is sent to be kept.
  if (existing.length >= idp.passkeys.max) throw new HttpProblem(409, `An account holds at most ${idp.passkeys.max} passkeys; remove one first.`, { type: 'too-many-passkeys' });
  const rp = relyingParty(idp, request);
  // One random user handle per account (kept with each passkey, no personal data in it), so an authenticator keeps one passkey per account.
  const userHandle = existing[0]?.userHandle ?? toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = await idp.grants.passkeyChallenges.issue({ purpose: 'registration', browser: await browserOf(request), accountId: account.id, userHandle });
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.email,
    userID: bytesOf(userHandle),
    challenge: bytesOf(challenge),
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return json(options);
}

/** `POST /idp/passkeys/registration`: verifies the new credential and keeps it with its name. */
export async function register(idp: IdpContext, request: Request): Promise<Response> {
  const body = await readBody(request);
  const account = await loggedIn(idp, request);
  const name = passkeyName(body.name);
  const credential = credentialOf(body);
  const { challenge, grant } = await consumeChallenge(idp, request, credential.response, 'registration');
  if (grant.accountId !== account.id) throw refuse('The challenge was issued to another account.');
  const rp = relyingParty(idp, request);
  const { verifyRegistrationResponse } = await webauthn();
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: credential.raw as unknown as Parameters<typeof verifyRegistrationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch (error) {
    throw refuse(`The new passkey was not accepted: ${(error as Error).message}`);
  }
  if (!verification.verified || !verification.registrationInfo) throw refuse('The new passkey was not accepted.');
  const made = verification.registrationInfo.credential;
  const passkey = await idp.passkeys.add({
    id: made.id,
    accountId: account.id,
    userHandle: grant.userHandle!,
    publicKey: toBase64Url(made.publicKey),
    counter: made.counter,
    transports: made.transports ?? [],
    name,
  });
  idp.log(`idp: ${account.email} added a passkey`);
  return json({ id: passkey.id, name: passkey.name, created: passkey.created }, 201);
}

/**
 * `POST /idp/passkeys/login-options` with an optional `email`: options for `navigator.credentials.get`.
 * Without an email any discoverable passkey of this site may answer; with one, the options list that
 * account's passkeys (so security keys without discoverable credentials work too) and bind the challenge to it.
 */
export async function loginOptions(idp: IdpContext, request: Request): Promise<Response> {
  const body = await readBody(request);
  const email = typeof body.email === 'string' && body.email.trim() ? body.email : null;
  const account = email ? await idp.accounts.byEmail(email) : null;
  const passkeys = account ? await idp.passkeys.list(account.id) : [];
  const rp = relyingParty(idp, request);
  const challenge = await idp.grants.passkeyChallenges.issue({ purpose: 'login', browser: await browserOf(request), ...(account && { accountId: account.id }) });
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    challenge: bytesOf(challenge),
    timeout: TIMEOUT_MS,
    userVerification: 'required',
    allowCredentials: passkeys.map((passkey) => ({ id: passkey.id, transports: passkey.transports as never })),
  });
  return json(options);
}

/**
 * `POST /idp/passkeys/login`: verifies the assertion (challenge, origin, RP ID hash, user verification,
 * signature, counter), then starts the session and says where the browser goes next: the consent page of
 * the authorization request the login page answered, or the account page.
 */
export async function login(idp: IdpContext, request: Request): Promise<Response> {
  const body = await readBody(request);
  const credential = credentialOf(body);
  const { challenge, grant } = await consumeChallenge(idp, request, credential.response, 'login');
  const passkey = await idp.passkeys.get(credential.id);
  if (!passkey) throw refuse('This passkey is not registered here (it may have been removed).');
  if (grant.accountId !== undefined && grant.accountId !== passkey.accountId) throw refuse('This passkey belongs to another account than the email given.');
  const userHandle = credential.response.userHandle;
  if (userHandle !== undefined && userHandle !== null && userHandle !== passkey.userHandle) throw refuse('The passkey names another user than it was registered for.');
  const account = await idp.accounts.get(passkey.accountId);
  if (!account) throw refuse('The account of this passkey does not exist any more.');
  const verified = await verifyAssertion(idp, request, credential.raw, challenge, passkey);
  if (!(await idp.passkeys.used(passkey.id, verified.newCounter, passkey))) throw refuse('The passkey was used at the same time by another login; try again.', 409);
  const location = afterLogin(stringsOf(body.request));
  idp.log(`idp: ${account.email} logged in with a passkey`);
  return new Response(JSON.stringify({ location }), {
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Set-Cookie': (await idp.sessions.start(request, account)).setCookie },
  });
}

async function verifyAssertion(idp: IdpContext, request: Request, response: Record<string, unknown>, challenge: string, passkey: Passkey): Promise<{ newCounter: number }> {
  const rp = relyingParty(idp, request);
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const verification = await verifyAuthenticationResponse({
      response: response as unknown as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: passkey.id, publicKey: bytesOf(passkey.publicKey), counter: passkey.counter },
      requireUserVerification: true,
    });
    if (verification.verified) return { newCounter: verification.authenticationInfo.newCounter };
  } catch (error) {
    throw refuse(`The passkey's answer was not accepted: ${(error as Error).message}`);
  }
  throw refuse("The passkey's signature is not valid.");
}
