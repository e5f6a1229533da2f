import type { CredentialVerifier } from '../auth/authenticate.ts';
import { jose } from '../auth/jose.ts';
import type { Config } from '../config/options.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import { endpointOf, issuerFor } from './issuer.ts';
import type { EndedTokens } from './ended-tokens.ts';
import { CREDENTIALS_PATH } from './paths.ts';
import { SIGNING_ALGORITHM, type SigningKey } from './keys.ts';

const VERIFIED_TOKENS = 10_000;

/**
 * `Authorization: Bearer <token>` with an access token of this identity provider from `/idp/credentials`
 * without a DPoP proof (the only kind it issues unbound). Tokens signed by any other key are left to the next verifier (null); DPoP-bound
 * tokens sent as Bearer never get here (src/auth/solid-oidc/verifier.ts refuses them first).
 */
export function idpBearerVerifier(config: Config, signingKey: () => Promise<SigningKey>, ended: EndedTokens, now: () => number): CredentialVerifier {
  // The signing key never changes while the process runs: a signature checked once need not be checked again;
  // whether the token has ended is asked every time.
  const verified = new BoundedCache<string, { webId: string; issuer: string; expiresMs: number; claims: Record<string, unknown> }>(VERIFIED_TOKENS);
  const accept = async (webId: string, claims: Record<string, unknown>) => {
    const reason = await ended.endedBecause(claims);
    return reason ? { error: reason } : { webId };
  };
  return {
    scheme: 'bearer',
    async verify(request, token) {
      const issuer = issuerFor(config, request);
      const known = verified.get(token);
      if (known && known.expiresMs > now() && known.issuer === issuer) return accept(known.webId, known.claims);
      const { decodeProtectedHeader, jwtVerify, errors } = await jose();
      const key = await signingKey();
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return null;
      }
      if (kid !== key.kid) return null;
      try {
        const { payload } = await jwtVerify(token, key.publicKey, { algorithms: [SIGNING_ALGORITHM], issuer, audience: 'solid', requiredClaims: ['exp'], currentDate: new Date(now()) });
        if (typeof payload.webid !== 'string') return { error: 'the access token names no WebID' };
        // Only the script login's tokens are Bearer tokens; the token endpoint's are DPoP-bound (token.ts).
        if (payload.client_id !== endpointOf(issuer, CREDENTIALS_PATH) || payload.cnf !== undefined) return { error: 'this access token is not a Bearer token: send it as DPoP with a proof' };
        verified.set(token, { webId: payload.webid, issuer, expiresMs: payload.exp! * 1000, claims: payload });
        return accept(payload.webid, payload);
      } catch (error) {
        if (error instanceof errors.JWTExpired) return { error: 'the access token has expired' };
        if (error instanceof errors.JWTClaimValidationFailed) return { error: `the access token is not valid here: ${error.message}` };
        return { error: 'the access token signature is not valid' };
      }
    },
  };
}
