import type { SigningKey } from './keys.ts';
import { SIGNING_ALGORITHM } from './keys.ts';
import { randomToken } from './random.ts';

export const ACCESS_TOKEN_SECONDS = 3600;

/** What an access token vouches for. */
export interface TokenGrant {
  webId: string;
  clientId: string;
  scope: string;
  /** Thumbprint of the DPoP key the token is bound to; absent for a plain Bearer token. */
  jkt?: string;
  /** The account's epoch when the token was issued: a new epoch ends the token (src/idp/ended-tokens.ts). */
  epoch: string;
  /** What else may end it early: the app's authorization (refresh token family) or the client credential. */
  family?: string;
}

/**
 * A Solid-OIDC access token (a JWT, RFC 9068 shape): `webid`, `iss`, `aud` with `solid` and the client,
 * `cnf.jkt` when DPoP-bound. It carries everything a resource server needs without the ID token, and the ids
 * this server ends it by before it expires (`epoch`, `family`).
 */
export async function mintAccessToken(key: SigningKey, issuer: string, grant: TokenGrant, nowMs: number): Promise<string> {
  const { SignJWT } = await import('jose');
  const now = Math.floor(nowMs / 1000);
  const ends = { epoch: grant.epoch, ...(grant.family && { family: grant.family }) };
  return new SignJWT({ webid: grant.webId, client_id: grant.clientId, scope: grant.scope, ...ends, ...(grant.jkt && { cnf: { jkt: grant.jkt } }) })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject(grant.webId)
    .setAudience(['solid', grant.clientId])
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_SECONDS)
    .setJti(randomToken())
    .sign(key.privateKey);
}

/** The ID token of an OpenID Connect login: the WebID as `sub` and `webid`, the client as `aud` and `azp`. */
export async function mintIdToken(key: SigningKey, issuer: string, grant: TokenGrant & { nonce?: string; authTime?: number }, nowMs: number): Promise<string> {
  const { SignJWT } = await import('jose');
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({
    webid: grant.webId,
    azp: grant.clientId,
    ...(grant.nonce && { nonce: grant.nonce }),
    ...(grant.authTime && { auth_time: grant.authTime }),
    ...(grant.jkt && { cnf: { jkt: grant.jkt } }),
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setSubject(grant.webId)
    .setAudience(grant.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_SECONDS)
    .setJti(randomToken())
    .sign(key.privateKey);
}
