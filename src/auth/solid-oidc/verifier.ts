import type { Platform } from '../../platform.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import type { CredentialVerifier, Verdict } from '../authenticate.ts';
import type { IssuedTokens } from '../issued-tokens.ts';
import { verifyAccessToken, type VerifiedAccessToken } from './access-token.ts';
import { isLocal, type DocumentSources } from './documents.ts';
import { DpopProofVerifier } from './dpop-proof.ts';
import { IssuerKeys } from './issuer-keys.ts';
import { CredentialRefusal, invalidProof, invalidToken } from './refusal.ts';
import { MemoryReplayCache, type ReplayCache } from './replay-cache.ts';
import { WebIdIssuers } from './webid-issuers.ts';

const VERIFIED_TOKENS = 10_000;

export interface SolidOidcOptions {
  platform: Platform;
  now: () => number;
  /** Answers a request with this server's own handlers (documents on the server's own origin are read that way). */
  local(request: Request): Promise<Response>;
  /** Where proof `jti`s are remembered; in process unless given. */
  replays?: ReplayCache;
  /** Ends this server's own tokens early (the identity provider's, after a password change or a revocation). */
  issuedTokens?: IssuedTokens;
}

function refusal(error: unknown): Verdict {
  if (error instanceof CredentialRefusal) return { error: error.message, code: error.code };
  throw error;
}

/**
 * `Authorization: DPoP <token>` with a `DPoP` proof (Solid-OIDC, RFC 9449), from any issuer: the proof is
 * checked on every request; the token's signature once (then it is remembered until it expires); the
 * WebID profile must list the token's issuer. Nothing is loaded or fetched before the first DPoP request.
 */
export function dpopVerifier(options: SolidOidcOptions): CredentialVerifier {
  const sources: DocumentSources = { local: options.local, ...(options.platform.fetch && { outbound: options.platform.fetch }) };
  const proofs = new DpopProofVerifier(options.replays ?? new MemoryReplayCache(), options.platform.signatureVerifier);
  const issuerKeys = new IssuerKeys(sources, options.now);
  const webIdIssuers = new WebIdIssuers(sources, options.now);
  const verified = new BoundedCache<string, VerifiedAccessToken & { issuerOrigin: string; localIssuer: boolean }>(VERIFIED_TOKENS);

  /**
   * A token verified before, unexpired. Tokens are remembered per route to their issuer's keys: read from
   * this server, or fetched (see WebIdIssuers).
   */
  function rememberedToken(token: string, serverOrigin: string, nowMs: number): VerifiedAccessToken | undefined {
    const known = verified.get(token);
    return known && known.expiresMs > nowMs && (known.issuerOrigin === serverOrigin) === known.localIssuer ? known : undefined;
  }

  async function verifiedToken(token: string, serverOrigin: string, nowMs: number): Promise<VerifiedAccessToken> {
    const fresh = await verifyAccessToken(token, issuerKeys, serverOrigin, nowMs);
    verified.set(token, { ...fresh, issuerOrigin: new URL(fresh.issuer).origin, localIssuer: isLocal(fresh.issuer, serverOrigin) });
    return fresh;
  }

  return {
    scheme: 'dpop',
    async verify(request, token) {
      try {
        if (!token || /\s/.test(token)) throw invalidToken('send "DPoP <token>" with one token');
        const proof = request.headers.get('dpop');
        if (!proof) throw invalidProof('a DPoP token needs a DPoP proof header');
        const nowMs = options.now();
        const serverOrigin = new URL(request.url).origin;
        // The proof first: it costs no fetch, so requests without a valid proof never make the server fetch.
        const jkt = await proofs.verify(proof, { method: request.method, url: request.url, accessToken: token, nowMs });
        const access = rememberedToken(token, serverOrigin, nowMs) ?? (await verifiedToken(token, serverOrigin, nowMs));
        if (access.jkt !== jkt) throw invalidToken('the DPoP proof is not signed with the key the access token is bound to (cnf.jkt)');
        const ended = await options.issuedTokens?.endedBecause(access);
        if (ended) throw invalidToken(ended);
        let listed;
        try {
          listed = await webIdIssuers.lists(access.webId, access.issuer, serverOrigin);
        } catch (error) {
          throw invalidToken(`the WebID profile ${access.webId} cannot be read: ${(error as Error).message}`);
        }
        if (!listed) throw invalidToken(`the WebID profile ${access.webId} does not list ${access.issuer} as its solid:oidcIssuer`);
        return { webId: access.webId };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** The payload of a compact JWS, or null when the text is not one. */
function payloadOf(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload: unknown = JSON.parse(atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Refuses a DPoP-bound token (one with `cnf`) sent as `Bearer`: without its proof it would be a stolen
 * token's easy way in (RFC 9449 §7.2). Every other bearer token is left to the next verifier.
 */
export const boundTokenAsBearer: CredentialVerifier = {
  scheme: 'bearer',
  async verify(_request, token) {
    const payload = payloadOf(token);
    if (payload === null || !('cnf' in payload)) return null;
    return { error: 'the access token is bound to a key (DPoP): send it as "Authorization: DPoP <token>" with a DPoP proof', code: 'invalid_token' };
  },
};
