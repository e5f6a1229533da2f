import { DpopProofVerifier } from '../auth/solid-oidc/dpop-proof.ts';
import { CredentialRefusal } from '../auth/solid-oidc/refusal.ts';
import { oauthError } from './oauth-error.ts';

export { DpopProofVerifier };

/**
 * The thumbprint of the key of the request's DPoP proof (RFC 9449 §5), which the tokens it earns are bound
 * to (`cnf.jkt`); undefined when the request has no proof. The proof is checked by the same verifier as at
 * resources; a fault is the OAuth error `invalid_dpop_proof`.
 */
export async function dpopKeyOf(proofs: DpopProofVerifier, request: Request, nowMs: number): Promise<string | undefined> {
  const proof = request.headers.get('dpop');
  if (proof === null) return undefined;
  try {
    return await proofs.verify(proof, { method: request.method, url: request.url, accessToken: '', nowMs });
  } catch (error) {
    if (error instanceof CredentialRefusal) throw oauthError(400, 'invalid_dpop_proof', `The DPoP proof is not valid: ${error.message}.`);
    throw error;
  }
}
