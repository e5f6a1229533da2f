/**
 * The JWS algorithms accepted for DPoP proofs and Solid-OIDC access tokens: asymmetric only, so neither
 * `none` nor a MAC keyed with something public (HS256 over a published key) can pass.
 */
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'] as const;

export type AcceptedAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** How an algorithm signs (RFC 7518 §3, RFC 8037 §3.1): the key it needs, its WebCrypto scheme and hash. */
export interface AlgorithmProfile {
  kty: 'EC' | 'RSA' | 'OKP';
  /** The one curve the key must be on (EC and OKP). */
  crv?: string;
  scheme: 'ECDSA' | 'RSASSA-PKCS1-v1_5' | 'RSA-PSS' | 'Ed25519';
  /** Absent for Ed25519, which hashes as part of the scheme. */
  hash?: 'SHA-256' | 'SHA-384' | 'SHA-512';
}

const ecdsa = (crv: string, hash: AlgorithmProfile['hash']): AlgorithmProfile => ({ kty: 'EC', crv, scheme: 'ECDSA', hash });
const rsa = (scheme: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS', hash: AlgorithmProfile['hash']): AlgorithmProfile => ({ kty: 'RSA', scheme, hash });
const ed25519: AlgorithmProfile = { kty: 'OKP', crv: 'Ed25519', scheme: 'Ed25519' };

export const ALGORITHM_PROFILES: Readonly<Record<AcceptedAlgorithm, AlgorithmProfile>> = {
  ES256: ecdsa('P-256', 'SHA-256'),
  ES384: ecdsa('P-384', 'SHA-384'),
  ES512: ecdsa('P-521', 'SHA-512'),
  PS256: rsa('RSA-PSS', 'SHA-256'),
  PS384: rsa('RSA-PSS', 'SHA-384'),
  PS512: rsa('RSA-PSS', 'SHA-512'),
  RS256: rsa('RSASSA-PKCS1-v1_5', 'SHA-256'),
  RS384: rsa('RSASSA-PKCS1-v1_5', 'SHA-384'),
  RS512: rsa('RSASSA-PKCS1-v1_5', 'SHA-512'),
  EdDSA: ed25519,
  Ed25519: ed25519,
};

/** RSA-PSS salt length of a JWS algorithm: the length of its hash (RFC 7518 §3.5). */
export function pssSaltBytes(hash: NonNullable<AlgorithmProfile['hash']>): number {
  return Number(hash.slice(4)) / 8;
}

const ACCEPTED: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS);

export function isAcceptedAlgorithm(alg: unknown): alg is AcceptedAlgorithm {
  return typeof alg === 'string' && ACCEPTED.has(alg);
}
