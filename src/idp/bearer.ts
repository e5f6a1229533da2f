import type { CredentialVerifier } from '../auth/authenticate.ts';
import type { Config } from '../config/options.ts';
import { issuerFor } from './issuer.ts';
import { SIGNING_ALGORITHM, type SigningKey } from './keys.ts';

/**
 * `Authorization: Bearer <token>` with an access token of this identity provider (from `/idp/credentials`
 * without a DPoP proof). Tokens signed by any other key are left to the next verifier (null); DPoP-bound
 * tokens sent as Bearer never get here (src/auth/solid-oidc/verifier.ts refuses them first).
 */
export function idpBearerVerifier(config: Config, signingKey: () => Promise<SigningKey>, now: () => number): CredentialVerifier {
  return {
    scheme: 'bearer',
    async verify(request, token) {
      const { decodeProtectedHeader, jwtVerify, errors } = await import('jose');
      const key = await signingKey();
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return null;
      }
      if (kid !== key.kid) return null;
      try {
        const { payload } = await jwtVerify(token, key.publicKey, {
          algorithms: [SIGNING_ALGORITHM],
          issuer: issuerFor(config, request),
          audience: 'solid',
          currentDate: new Date(now()),
        });
        if (typeof payload.webid !== 'string') return { error: 'the access token names no WebID' };
        return { webId: payload.webid };
      } catch (error) {
        if (error instanceof errors.JWTExpired) return { error: 'the access token has expired' };
        if (error instanceof errors.JWTClaimValidationFailed) return { error: `the access token is not valid here: ${error.message}` };
        return { error: 'the access token signature is not valid' };
      }
    },
  };
}
