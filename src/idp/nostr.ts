/**
 * Nostr with the identity provider: sign-in with a key an account linked (NIP-07 in the browser signs a
 * NIP-98 event for the login form), linking a key on the account page by signing a single-use challenge
 * (and unlinking it there), and the DID documents of linked keys (`/.well-known/did/nostr/<pubkey>.json`, for NIP-98 on any route).
 */
import { didOfKey } from '../auth/nostr/http-auth.ts';
import { HttpProblem } from '../http/problem.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { readForm } from './form.ts';
import { accountForm, renderAccount } from './account.ts';
import { afterLogin } from './authorize.ts';
import { ACCOUNT_PATH } from './paths.ts';
import { checkCsrf } from './session.ts';

function refused(request: Request, detail: string): HttpProblem {
  return new HttpProblem(401, detail, { type: 'invalid-nostr-event', headers: { 'WWW-Authenticate': `Nostr realm="${new URL(request.url).origin}"` } });
}

/** The key that signed the request's NIP-98 event; a 401 problem when there is none or it does not hold. */
async function signingKey(idp: IdpContext, request: Request): Promise<string> {
  const header = request.headers.get('authorization')?.trim() ?? '';
  const match = /^nostr\s+(\S+)$/i.exec(header);
  if (!match) throw refused(request, 'Sign a NIP-98 event for this URL and send it as "Authorization: Nostr <base64 event>".');
  const checked = await idp.nostrCheck(request, match[1]!);
  if ('error' in checked) throw refused(request, `The Nostr event is not accepted: ${checked.error}.`);
  return checked.pubkey;
}

const next = (location: string, cookie?: string) =>
  Response.json({ location }, { headers: { 'Cache-Control': 'no-store', ...(cookie && { 'Set-Cookie': cookie }) } });

/**
 * `POST /idp/nostr/login` (the login form's hidden fields, signed): logs in the account that linked the key
 * and answers where the browser goes next: the authorization request it came with (now to be consented), or
 * the account page.
 */
export async function nostrLogin(idp: IdpContext, request: Request): Promise<Response> {
  const pubkey = await signingKey(idp, request);
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const accountId = await idp.nostrKeys.accountOf(pubkey);
  const account = accountId ? await idp.accounts.get(accountId) : null;
  if (!account) throw refused(request, `The key ${didOfKey(pubkey)} is not linked to any account: log in with your password and link it on the account page.`);
  const location = afterLogin(form);
  idp.log(`idp: ${account.email} logged in with ${didOfKey(pubkey)}`);
  return next(location, (await idp.sessions.start(request, account)).setCookie);
}

/** `POST /idp/account/nostr` (CSRF value and challenge of the account page, signed): links the signing key. */
export async function linkNostrKey(idp: IdpContext, request: Request): Promise<Response> {
  const pubkey = await signingKey(idp, request);
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const session = await idp.sessions.current(request);
  if (!session) throw new HttpProblem(401, 'Log in to link a Nostr key to your account.', { type: 'unauthenticated' });
  if (!(await idp.nostrKeys.useChallenge(form.challenge ?? '', session.account.id))) {
    throw refused(request, 'The challenge is unknown, used or expired: reload the account page and sign again.');
  }
  await idp.nostrKeys.link(pubkey, session.account.id);
  idp.log(`idp: ${session.account.email} linked ${didOfKey(pubkey)}`);
  return next(ACCOUNT_PATH);
}

/** `POST /idp/account/nostr/unlink` (a form of the account page): unlinks one of the account's keys. */
export const unlinkNostrKeyForm = accountForm(async (idp, request, session, form) => {
  const unlinked = await idp.nostrKeys.unlink(form.key ?? '', session.account.id);
  if (unlinked) idp.log(`idp: ${session.account.email} unlinked ${didOfKey(form.key!)}`);
  return renderAccount(idp, request, session, form.csrf!, unlinked ? { message: 'The Nostr key has been unlinked: it no longer logs in to this account.' } : { error: 'This account has no such Nostr key.' }, unlinked ? 200 : 404);
});

/** `GET /.well-known/did/nostr/<pubkey>.json`: the DID document of a linked key, naming the account's WebID. */
export async function nostrDidDocument(idp: IdpContext, request: Request, file: string): Promise<Response> {
  const pubkey = /^([0-9a-f]{64})\.json$/.exec(file)?.[1];
  const accountId = pubkey ? await idp.nostrKeys.accountOf(pubkey) : null;
  const account = accountId ? await idp.accounts.get(accountId) : null;
  if (!pubkey || !account) throw new HttpProblem(404, 'No account of this server linked this Nostr key.', { type: 'not-found' });
  const document = { '@context': ['https://www.w3.org/ns/did/v1'], id: didOfKey(pubkey), alsoKnownAs: [webIdOf(idp.config, account, request)] };
  return new Response(JSON.stringify(document), { headers: { 'Content-Type': 'application/did+json', 'Cache-Control': 'max-age=60' } });
}
