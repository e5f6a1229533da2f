/**
 * DPoP proof signatures checked with `node:crypto`: a synchronous one-shot verify on the main thread costs
 * less CPU than WebCrypto's, which converts the signature and hands the check to the thread pool. Signatures
 * are the raw JWS form (IEEE P1363 `r || s` for ECDSA), so it accepts and refuses what WebCrypto does.
 */
import { constants, createPublicKey, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';
import { ALGORITHM_PROFILES, pssSaltBytes, type AlgorithmProfile } from '../../src/auth/solid-oidc/algorithms.ts';
import type { SignatureVerifierFactory } from '../../src/auth/solid-oidc/signature.ts';

/** OpenSSL names of the curves a JWS algorithm can need. */
const CURVES: Record<string, string> = { 'P-256': 'prime256v1', 'P-384': 'secp384r1', 'P-521': 'secp521r1' };

function fits(key: KeyObject, profile: AlgorithmProfile): boolean {
  if (profile.kty === 'RSA') return key.asymmetricKeyType === 'rsa';
  if (profile.kty === 'OKP') return key.asymmetricKeyType === 'ed25519';
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVES[profile.crv!];
}

export const nodeSignatureVerifier: SignatureVerifierFactory = async (alg, jwk) => {
  const profile = ALGORITHM_PROFILES[alg];
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  if (key.type !== 'public' || !fits(key, profile)) throw new Error(`the key cannot be used with ${alg}`);
  const digest = profile.hash ? profile.hash.replace('-', '').toLowerCase() : null;
  const options: VerifyKeyObjectInput =
    profile.scheme === 'ECDSA'
      ? { key, dsaEncoding: 'ieee-p1363' }
      : profile.scheme === 'RSA-PSS'
        ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pssSaltBytes(profile.hash!) }
        : { key };
  return (data, signature) => {
    try {
      return verify(digest, data, options, signature);
    } catch {
      return false;
    }
  };
};
