import { BoundedCache } from '../storage/bounded-cache.ts';
import { DPOP_ALGORITHMS } from './discovery.ts';
import { oauthError } from './oauth-error.ts';

/** How far a proof's `iat` may be from our clock (RFC 9449 §11.1 leaves the window to the server). */
const IAT_WINDOW_SECONDS = 60;
const REMEMBERED_PROOFS = 100_000;

/** Proof ids seen within the `iat` window: a proof is good for one request only. */
export class ProofReplayCache {
  readonly #seen = new BoundedCache<string, number>(REMEMBERED_PROOFS);

  /** True the first time `jti` is seen (while it is still within the window). */
  firstUse(jti: string, nowMs: number): boolean {
    const until = this.#seen.get(jti);
    if (until !== undefined && until > nowMs) return false;
    this.#seen.set(jti, nowMs + 2 * IAT_WINDOW_SECONDS * 1000);
    return true;
  }
}

const invalid = (detail: string) => oauthError(400, 'invalid_dpop_proof', `The DPoP proof is not valid: ${detail}.`);

/** The URL a proof's `htu` is compared with: no query, no fragment (RFC 9449 §4.3). */
function htuOf(url: string): string {
  const parsed = new URL(url);
  return parsed.origin + parsed.pathname;
}

/**
 * Checks the DPoP proof of a request to the identity provider's own endpoints (RFC 9449 §4.3) and returns
 * the thumbprint of its key, which the tokens it earns are bound to (`cnf.jkt`).
 */
export async function verifyDpopProof(proof: string, request: Request, replay: ProofReplayCache, nowMs: number): Promise<string> {
  const { jwtVerify, EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, errors } = await import('jose');
  let header;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw invalid('it is not a JWS');
  }
  if (header.typ !== 'dpop+jwt') throw invalid('its typ must be "dpop+jwt"');
  if (!header.jwk || 'd' in header.jwk) throw invalid('its header must carry the public key as "jwk"');
  let payload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: DPOP_ALGORITHMS, currentDate: new Date(nowMs), maxTokenAge: undefined }));
  } catch (error) {
    throw invalid(error instanceof errors.JOSEError ? error.message : 'its signature does not verify');
  }
  if (payload.htm !== request.method) throw invalid(`htm must be "${request.method}"`);
  if (typeof payload.htu !== 'string' || !URL.canParse(payload.htu) || htuOf(payload.htu) !== htuOf(request.url)) throw invalid(`htu must be ${htuOf(request.url)}`);
  const now = Math.floor(nowMs / 1000);
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - now) > IAT_WINDOW_SECONDS) throw invalid(`iat must be within ${IAT_WINDOW_SECONDS} s of the server's clock`);
  if (typeof payload.jti !== 'string' || !payload.jti) throw invalid('it needs a jti');
  if (!replay.firstUse(payload.jti, nowMs)) throw invalid('this proof (its jti) was used before');
  return calculateJwkThumbprint(header.jwk);
}
