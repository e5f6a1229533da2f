import { toBase64Url } from '../http/base64url.ts';
import type { PodHosts } from '../pods/subdomains.ts';
import { requestOrigin } from '../http/request-origin.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import type { CredentialVerifier, Verdict } from './authenticate.ts';
import { jose } from './jose.ts';

/** Our tokens name this issuer and audience, so no other JWT signed elsewhere with HS256 passes. */
const ISSUER = 'urn:svc:bearer';
const ALGORITHM = 'HS256';
const VERIFIED_TOKENS = 10_000;

/** A token whose signature was checked, with the WebID as last seen from a request's origin (the same for all of its requests but in subdomain mode). */
interface Verified {
  webId: string;
  expiresMs: number;
  local?: { origin: string; webId: string };
}

/** The claim naming the owner secret a token was traded for (`POST /.pods/owner-token`). */
const OWNER_SECRET_CLAIM = 'osh';

/**
 * What an owner token carries of the secret it was traded for: an HMAC of the secret under the token key,
 * so it tells nothing of the secret, and a token stops working when the secret is changed.
 */
export async function ownerSecretTag(key: Uint8Array, secret: string): Promise<string> {
  const hmac = await crypto.subtle.importKey('raw', new Uint8Array(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(`svc owner secret\n${secret}`)));
  return toBase64Url(mac.subarray(0, 16));
}

/** Signs a token for a WebID on this server, valid for `ttlSeconds`; `ownerSecret`: the secret it was traded for, which must not change while it is used. */
export async function mintToken(key: Uint8Array, webId: string, ttlSeconds: number, nowMs: number, ownerSecret?: string): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  const { SignJWT } = await jose();
  return new SignJWT({ webid: webId, ...(ownerSecret !== undefined && { [OWNER_SECRET_CLAIM]: await ownerSecretTag(key, ownerSecret) }) })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(ISSUER)
    .setSubject(webId)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key);
}

async function reasonOf(error: unknown): Promise<string> {
  const { errors } = await jose();
  if (error instanceof errors.JWTExpired) return 'the bearer token has expired';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the bearer token signature is not valid';
  if (error instanceof errors.JOSEError) return 'the bearer token is malformed or was not issued by this server';
  return 'the bearer token could not be verified';
}

/**
 * The WebID a token vouches for, moved to the origin the request came to: our tokens only speak for
 * WebIDs on this server, so a pod keeps working under another host name or behind a proxy. In subdomain
 * mode the WebID's host names its pod, so only the scheme and port move.
 */
function localWebId(claimed: string, requestUrl: string, hosts: PodHosts | null): string {
  const url = new URL(claimed);
  if (!hosts) return requestOrigin(requestUrl) + url.pathname + url.hash;
  return hosts.publicUrlOf(hosts.localize(url, url.origin) ?? url.pathname + url.hash, new URL(requestUrl));
}

/**
 * A token that is no JWT (an OAuth app's opaque token) or a JWT naming another issuer: another verifier's to
 * judge (the identity provider's, the OAuth token store's).
 */
async function issuedElsewhere(token: string): Promise<boolean> {
  const { decodeJwt } = await jose();
  try {
    return decodeJwt(token).iss !== ISSUER;
  } catch {
    return true;
  }
}

/**
 * `Authorization: Bearer <token>` with a token this server signed; tokens of other issuers are left to other
 * verifiers. A token traded for the owner secret holds only while `ownerSecret` is the same.
 */
export function bearerVerifier(key: () => Promise<Uint8Array>, now: () => number, hosts: PodHosts | null = null, ownerSecret: string | null = null): CredentialVerifier {
  // Imported once: importing the raw secret on every request costs about as much as verifying the token.
  let verifyKey: Promise<CryptoKey> | null = null;
  const importedKey = () =>
    (verifyKey ??= key()
      .then((secret) => crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']))
      .catch((error: unknown) => {
        verifyKey = null;
        throw error;
      }));
  // Tokens are immutable and this key never changes while the process runs, so a signature checked once
  // need not be checked again; only the expiry is looked at on later requests.
  const verified = new BoundedCache<string, Verified>(VERIFIED_TOKENS);
  let secretTag: Promise<string> | null = null;
  const currentSecretTag = () => (secretTag ??= key().then((secret) => ownerSecretTag(secret, ownerSecret!)));
  return {
    scheme: 'bearer',
    verify(request, token) {
      // A token verified before holds no whitespace: the check in verifyAnew kept any such out of the cache.
      const known = verified.get(token);
      if (known && known.expiresMs > now()) {
        const origin = requestOrigin(request.url);
        if (known.local?.origin !== origin) known.local = { origin, webId: localWebId(known.webId, request.url, hosts) };
        return { webId: known.local.webId };
      }
      return verifyAnew(request, token);
    },
  };

  async function verifyAnew(request: Request, token: string): Promise<Verdict> {
    if (!token || /\s/.test(token)) return { error: 'send "Bearer <token>" with one token' };
    if (await issuedElsewhere(token)) return null;
    try {
      const { jwtVerify } = await jose();
      const { payload } = await jwtVerify(token, await importedKey(), {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: ISSUER,
        currentDate: new Date(now()),
      });
      if (typeof payload.webid !== 'string') return { error: 'the bearer token names no WebID' };
      // Checked before the token is cached: the cached path above trusts the WebID to be a URL.
      if (!URL.canParse(payload.webid)) return { error: 'the WebID in the bearer token is not a URL' };
      const tag = payload[OWNER_SECRET_CLAIM];
      if (tag !== undefined && (ownerSecret === null || tag !== (await currentSecretTag()))) {
        return { error: 'the owner token was traded for a --single-user-secret that has since changed: trade the current secret for a new one at POST /.pods/owner-token' };
      }
      if (typeof payload.exp === 'number') verified.set(token, { webId: payload.webid, expiresMs: payload.exp * 1000 });
      return { webId: localWebId(payload.webid, request.url, hosts) };
    } catch (error) {
      return { error: await reasonOf(error) };
    }
  }
}
