/**
 * The JWS algorithms accepted for DPoP proofs and Solid-OIDC access tokens: asymmetric only, so neither
 * `none` nor a MAC keyed with something public (HS256 over a published key) can pass.
 */
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'] as const;

const ACCEPTED: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS);

export function isAcceptedAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && ACCEPTED.has(alg);
}
