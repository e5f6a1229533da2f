import { ALGORITHM_PROFILES, pssSaltBytes, type AcceptedAlgorithm } from './algorithms.ts';

/** The members that define a public key (RFC 7518 §6) and nothing else: what a signature check is made from. */
export interface PublicJwk {
  kty: 'EC' | 'RSA' | 'OKP';
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

/** Whether `signature` is a valid signature of `data`; false, never a throw, for any signature that is not. */
export type VerifySignature = (data: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>) => boolean | Promise<boolean>;

/**
 * Makes the signature check of an algorithm for a public key that fits it (kty, curve and RSA size are
 * checked before); rejects when the key cannot be used (not on its curve, not a valid key).
 */
export type SignatureVerifierFactory = (alg: AcceptedAlgorithm, jwk: PublicJwk) => Promise<VerifySignature>;

/** Signature checks with WebCrypto: what every runtime has, used where the platform offers nothing faster. */
export const webCryptoSignatureVerifier: SignatureVerifierFactory = async (alg, jwk) => {
  const { scheme, crv, hash } = ALGORITHM_PROFILES[alg];
  const importParams = scheme === 'ECDSA' ? { name: scheme, namedCurve: crv! } : scheme === 'Ed25519' ? { name: scheme } : { name: scheme, hash: hash! };
  const verifyParams = scheme === 'ECDSA' ? { name: scheme, hash: hash! } : scheme === 'RSA-PSS' ? { name: scheme, saltLength: pssSaltBytes(hash!) } : { name: scheme };
  const key = await crypto.subtle.importKey('jwk', { ...jwk }, importParams, false, ['verify']);
  return async (data, signature) => {
    try {
      return await crypto.subtle.verify(verifyParams, key, signature, data);
    } catch {
      return false;
    }
  };
};
