/** The token endpoint (RFC 6749 §3.2): authorization_code with PKCE, refresh_token, client_credentials. */
import { toBase64Url } from '../http/base64url.ts';
import type { Account } from './accounts.ts';
import { secretMatches, type Client } from './clients.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { dpopKeyOf } from './dpop-proof.ts';
import { readForm } from './form.ts';
import { issuerFor } from './issuer.ts';
import { oauthError } from './oauth-error.ts';
import { sha256 } from './random.ts';
import { ACCESS_TOKEN_SECONDS, mintAccessToken, mintIdToken } from './tokens.ts';

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The client's id and secret from `Authorization: Basic` (client_secret_basic) or the form (client_secret_post). */
export function clientAuthentication(request: Request, form: Record<string, string>): { clientId: string | undefined; secret: string | null } {
  const header = request.headers.get('authorization');
  if (header && /^basic\s/i.test(header)) {
    let decoded: string;
    try {
      decoded = atob(header.slice(6).trim());
    } catch {
      throw oauthError(401, 'invalid_client', 'The Basic client authentication is not valid base64.', { 'WWW-Authenticate': 'Basic' });
    }
    const colon = decoded.indexOf(':');
    if (colon === -1) throw oauthError(401, 'invalid_client', 'The Basic client authentication must be "client_id:client_secret".', { 'WWW-Authenticate': 'Basic' });
    const clientId = decodeComponent(decoded.slice(0, colon));
    if (form.client_id && form.client_id !== clientId) throw oauthError(400, 'invalid_request', 'The client_id of the form differs from the one of the Basic authentication.');
    return { clientId, secret: decodeComponent(decoded.slice(colon + 1)) };
  }
  return { clientId: form.client_id, secret: form.client_secret ?? null };
}

const invalidGrant = (detail: string) => oauthError(400, 'invalid_grant', detail);

/** What the tokens of an answer are issued under: the account's epoch, and the family unless client credentials. */
interface Issuance {
  epoch: string;
  family?: { id: string; refresh: boolean };
  idToken?: { nonce?: string; authTime?: number };
}

async function tokenAnswer(idp: IdpContext, request: Request, account: Account, client: Client, scope: string, jkt: string, issuance: Issuance): Promise<Response> {
  const issuer = issuerFor(idp.config, request);
  const key = await idp.signingKey();
  // Client credentials end with the credential, the tokens of a login with the login's family.
  const family = issuance.family?.id ?? client.clientId;
  const grant = { webId: webIdOf(idp.config, account, request), clientId: client.clientId, scope, jkt, epoch: issuance.epoch, family };
  const body: Record<string, unknown> = {
    access_token: await mintAccessToken(key, issuer, grant, idp.now()),
    token_type: 'DPoP',
    expires_in: ACCESS_TOKEN_SECONDS,
    scope,
  };
  if (issuance.idToken) body.id_token = await mintIdToken(key, issuer, { ...grant, ...issuance.idToken }, idp.now());
  if (issuance.family?.refresh) {
    // RFC 9449 §5: a public client's refresh token is bound to its DPoP key; a confidential client's to its secret.
    const refresh = await idp.families.next(account.id, issuance.family.id, client.secretHash ? {} : { jkt });
    if (!refresh) throw invalidGrant('The app was logged out while this request was answered: log in again.');
    body.refresh_token = refresh;
  }
  return Response.json(body, { headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } });
}

async function accountOf(idp: IdpContext, id: string): Promise<Account> {
  const account = await idp.accounts.get(id);
  if (!account) throw invalidGrant('The account of this grant does not exist any more.');
  return account;
}

/** Why a code is refused, once the request passed every check. */
const CODE_REFUSED = {
  unknown: 'The authorization code is not valid: unknown or expired.',
  reused: 'The authorization code was used already: the tokens issued from it are revoked too (it may have been stolen). Log in again.',
} as const;

const ENDED_BY_ACCOUNT = 'The account has signed out everywhere or changed its password since: log in again.';

/**
 * The token endpoint. Everything that can refuse a request (client authentication, the DPoP proof, the
 * code's client, redirect_uri and PKCE verifier, a refresh token's client and key) is checked before a code
 * or refresh token is used up, so a request that fails burns nothing of anyone else's.
 */
export async function handleToken(idp: IdpContext, request: Request): Promise<Response> {
  const form = await readForm(request);
  const { clientId, secret } = clientAuthentication(request, form);
  const client = await idp.clients.resolve(clientId, new URL(request.url));
  if (!secretMatches(client, secret === null ? null : await sha256(secret))) {
    throw oauthError(401, 'invalid_client', 'The client authentication failed (wrong or missing client_secret).', { 'WWW-Authenticate': 'Basic' });
  }
  // Solid-OIDC tokens are bound to the client's key: one that leaks is of no use without the key. Scripts that
  // want a plain Bearer token have POST /idp/credentials.
  const jkt = await dpopKeyOf(idp.proofs, request, idp.now());
  if (!jkt) throw oauthError(400, 'invalid_dpop_proof', 'This token endpoint issues DPoP-bound tokens only: send a DPoP proof (RFC 9449) in the DPoP header. For a Bearer token, scripts use POST /idp/credentials.');

  switch (form.grant_type) {
    case 'authorization_code': {
      if (!form.code) throw oauthError(400, 'invalid_request', 'Send the authorization code as "code".');
      if (!form.code_verifier || !PKCE_VERIFIER.test(form.code_verifier)) throw oauthError(400, 'invalid_request', 'Send the PKCE code_verifier (43 to 128 characters).');
      let account: Account | undefined;
      let refresh = false;
      const exchanged = await idp.grants.codes.exchange(
        form.code,
        async (grant) => {
          if (grant.clientId !== client.clientId) throw invalidGrant('The authorization code was issued to another client.');
          if (form.redirect_uri !== grant.redirectUri) throw invalidGrant('The redirect_uri differs from the one of the authorization request.');
          const challenge = toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(form.code_verifier))));
          if (challenge !== grant.codeChallenge) throw invalidGrant('The code_verifier does not match the code_challenge (PKCE).');
          account = await accountOf(idp, grant.accountId);
          if (account.epoch !== grant.epoch) throw invalidGrant(ENDED_BY_ACCOUNT);
        },
        (grant) => {
          refresh = grant.scope.split(' ').includes('offline_access');
          return idp.families.start(grant.accountId, { clientId: client.clientId, clientName: client.name, scope: grant.scope, epoch: grant.epoch }, refresh);
        },
        (grant, family) => idp.families.end(grant.accountId, family),
      );
      if ('refused' in exchanged) throw invalidGrant(CODE_REFUSED[exchanged.refused]);
      const { grant, issued: family } = exchanged;
      return tokenAnswer(idp, request, account!, client, grant.scope, jkt, {
        epoch: grant.epoch,
        family: { id: family, refresh },
        idToken: { nonce: grant.nonce, authTime: grant.authTime },
      });
    }
    case 'refresh_token': {
      if (!form.refresh_token) throw oauthError(400, 'invalid_request', 'Send the refresh token as "refresh_token".');
      let account: Account | undefined;
      const redeemed = await idp.families.redeem(form.refresh_token, async (record, family) => {
        if (record.clientId !== client.clientId) throw invalidGrant('The refresh token was issued to another client.');
        if (record.jkt && record.jkt !== jkt) throw invalidGrant('The refresh token is bound to a DPoP key: send a DPoP proof made with that key.');
        account = await accountOf(idp, record.accountId);
        if (family && family.epoch !== account.epoch) throw invalidGrant(ENDED_BY_ACCOUNT);
      });
      if ('refused' in redeemed) throw invalidGrant(redeemed.refused);
      const { family, familyId } = redeemed;
      return tokenAnswer(idp, request, account!, client, family.scope, jkt, {
        epoch: family.epoch,
        family: { id: familyId, refresh: true },
        ...(family.scope.split(' ').includes('openid') && { idToken: {} }),
      });
    }
    case 'client_credentials': {
      if (!client.accountId || !client.secretHash) {
        throw oauthError(400, 'unauthorized_client', 'Only client credentials made on an account page may use the client_credentials grant.');
      }
      const account = await idp.accounts.get(client.accountId);
      if (!account) throw oauthError(401, 'invalid_client', 'The account of these client credentials does not exist any more.');
      return tokenAnswer(idp, request, account, client, form.scope || 'openid webid', jkt, { epoch: await idp.accounts.epochOf(account) });
    }
    default:
      throw oauthError(400, 'unsupported_grant_type', `The grant_type "${form.grant_type ?? ''}" is not supported; use authorization_code, refresh_token or client_credentials.`);
  }
}
