import { httpUrlOf } from '../../http/http-url.ts';
import { jose } from '../jose.ts';
import { ASYMMETRIC_ALGORITHMS } from './algorithms.ts';
import type { IssuerKeys } from './issuer-keys.ts';
import { invalidToken } from './refusal.ts';

/** The audience every Solid-OIDC access token must name (Solid-OIDC §8). */
export const SOLID_AUDIENCE = 'solid';
/** Leeway for `exp`, `nbf` and `iat` of access tokens: clocks of issuer and server differ a little. */
const CLOCK_TOLERANCE_SECONDS = 5;
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** What a verified access token vouches for. */
export interface VerifiedAccessToken {
  issuer: string;
  webId: string;
  /** Thumbprint of the key the token is bound to (`cnf.jkt`): the DPoP proofs must be signed with it. */
  jkt: string;
  expiresMs: number;
  /** The `kid` of the key that signed it and all its claims, for checks of this server's own tokens (auth/issued-tokens.ts). */
  kid: string | undefined;
  claims: Readonly<Record<string, unknown>>;
}

async function reasonOf(error: unknown): Promise<string> {
  const { errors } = await jose();
  if (error instanceof errors.JWTExpired) return 'the access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') return `the access token is not meant for this server (its aud does not include "${SOLID_AUDIENCE}")`;
  if (error instanceof errors.JWTClaimValidationFailed) return `the access token's ${error.claim} claim is not valid: ${error.message}`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the access token is not signed with an accepted asymmetric algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the access token signature is not valid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the access token';
  if (error instanceof errors.JOSEError) return `the access token is malformed (${error.message})`;
  return `the access token could not be verified (${(error as Error).message})`;
}

/**
 * Verifies a Solid-OIDC access token: signed by its issuer (keys discovered from `iss`), unexpired, for the
 * audience `solid`, bound to a key (`cnf.jkt`), naming a WebID (`webid`, or a URL `sub`). Throws a
 * `CredentialRefusal` (`invalid_token`).
 */
export async function verifyAccessToken(token: string, keys: IssuerKeys, serverOrigin: string, nowMs: number): Promise<VerifiedAccessToken> {
  if (!COMPACT_JWS.test(token)) throw invalidToken('the DPoP access token must be a signed JWT');
  const { decodeJwt, jwtVerify } = await jose();
  let issuer: unknown;
  try {
    issuer = decodeJwt(token).iss;
  } catch {
    throw invalidToken('the DPoP access token cannot be read');
  }
  if (typeof issuer !== 'string' || httpUrlOf(issuer) === null) throw invalidToken('the access token names no issuer URL (iss)');
  let getKey;
  try {
    getKey = await keys.keysOf(issuer, serverOrigin);
  } catch (error) {
    throw invalidToken(`the keys of the issuer ${issuer} are not available: ${(error as Error).message}`);
  }
  let payload;
  let kid: string | undefined;
  try {
    let protectedHeader;
    ({ payload, protectedHeader } = await jwtVerify(token, getKey, {
      algorithms: [...ASYMMETRIC_ALGORITHMS],
      issuer,
      audience: SOLID_AUDIENCE,
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(nowMs),
    }));
    kid = protectedHeader.kid;
  } catch (error) {
    throw invalidToken(await reasonOf(error));
  }
  const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (typeof jkt !== 'string') throw invalidToken('the access token is not bound to a key (no cnf.jkt)');
  const webIdUrl = httpUrlOf(payload.webid) ?? httpUrlOf(payload.sub);
  if (webIdUrl === null) throw invalidToken('the access token names no WebID (webid claim, or a URL sub)');
  // A WebID is a public name: one with a user name or password in it is no one's, whatever its profile says.
  if (webIdUrl.username !== '' || webIdUrl.password !== '') throw invalidToken('the access token\'s WebID carries a user name or password (user:password@host)');
  // The WebID as a URL writes it (`href`): WAC compares it as a string with the IRIs of ACL documents.
  const webId = webIdUrl.href;
  return { issuer, webId, jkt, expiresMs: payload.exp! * 1000, kid, claims: payload };
}
