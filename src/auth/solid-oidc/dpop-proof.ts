import { fromBase64Url, toBase64Url } from '../../http/base64url.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import { jose } from '../jose.ts';
import { ALGORITHM_PROFILES, isAcceptedAlgorithm, type AcceptedAlgorithm } from './algorithms.ts';
import { invalidProof } from './refusal.ts';
import type { ReplayCache } from './replay-cache.ts';
import { webCryptoSignatureVerifier, type PublicJwk, type SignatureVerifierFactory, type VerifySignature } from './signature.ts';

/** How old a proof may be (its `iat`), and so how long its `jti` is remembered. */
export const PROOF_MAX_AGE_SECONDS = 300;
/** How far a proof's `iat` may lie in the future: the client's clock may run ahead of ours. */
export const PROOF_CLOCK_SKEW_SECONDS = 60;
const MAX_JTI_LENGTH = 256;
const PUBLIC_KEY_TYPES = new Set(['EC', 'RSA', 'OKP']);
/** Members that only a private (or symmetric) JWK has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** base64url characters of an 8192-bit RSA modulus. */
const MAX_RSA_MODULUS_CHARS = Math.ceil(8192 / 6);
/** Smaller RSA keys are too weak (RFC 7518 §3.3 and §3.5). */
const MIN_RSA_MODULUS_BITS = 2048;
/** Proof headers are remembered up to this many characters in all (a header with an EC key has about 250). */
const HEADER_CACHE_CHARS = 4_000_000;

/** What the proof tells about the request it came with. */
export interface ProofContext {
  method: string;
  url: string;
  /** The access token the proof accompanies; its hash is compared with the proof's `ath` when it has one. */
  accessToken: string;
  nowMs: number;
}

/** The request URI as `htu` names it: RFC 9449 §4.3 compares it without query and fragment, after normalisation. */
export function normalizedHtu(uri: string): string | null {
  try {
    const url = new URL(uri);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** `ath`: the base64url SHA-256 of the access token (RFC 9449 §4.2). */
export async function accessTokenHash(accessToken: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))));
}

interface ProofKey {
  verify: VerifySignature;
  /** RFC 7638 SHA-256 thumbprint: what a bound token's `cnf.jkt` names. */
  jkt: string;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const ASCII = new TextEncoder();

/** A base64url segment of a JWS holding a JSON object (UTF-8), or null when it does not. */
function jsonObjectOf(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(STRICT_UTF8.decode(fromBase64Url(segment)));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Verifies DPoP proofs (RFC 9449 §4.3) and remembers their `jti`s. The compact JWS is read here, with the
 * checks a proof needs and no more; signatures are checked by the platform's verifier (Node's synchronous
 * one), else by WebCrypto. A client sends the same header with every proof, so what a header yields once
 * checked (its key's signature check and thumbprint) is kept by its exact text: a client's later proofs
 * cost one signature check.
 */
export class DpopProofVerifier {
  readonly #replays: ReplayCache;
  readonly #signatures: SignatureVerifierFactory;
  readonly #headers = new BoundedCache<string, { key: Promise<ProofKey>; chars: number }>(HEADER_CACHE_CHARS, (entry) => entry.chars);

  constructor(replays: ReplayCache, signatures: SignatureVerifierFactory = webCryptoSignatureVerifier) {
    this.#replays = replays;
    this.#signatures = signatures;
  }

  /** The thumbprint of the proof's key; throws a `CredentialRefusal` (`invalid_dpop_proof`) for any fault. */
  async verify(proof: string, context: ProofContext): Promise<string> {
    if (!COMPACT_JWS.test(proof)) throw invalidProof('the DPoP header must hold exactly one proof, a signed JWT');
    const [encodedHeader, encodedClaims, encodedSignature] = proof.split('.') as [string, string, string];
    const { verify, jkt } = await this.#keyOf(encodedHeader);
    let signature;
    try {
      signature = fromBase64Url(encodedSignature);
    } catch {
      signature = null;
    }
    let valid = signature !== null && verify(ASCII.encode(`${encodedHeader}.${encodedClaims}`), signature);
    // A synchronous answer (Node's) is not awaited: each await is a turn of the microtask queue.
    if (typeof valid !== 'boolean') valid = await valid;
    if (!valid) throw invalidProof('the DPoP proof signature is not valid for its embedded key');
    const claims = jsonObjectOf(encodedClaims);
    if (claims === null) throw invalidProof('the DPoP proof claims cannot be read (a JSON object)');
    const { jti, htm, htu, iat, ath, exp, nbf } = claims;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw invalidProof('the DPoP proof needs a jti');
    if (htm !== context.method) throw invalidProof(`the DPoP proof was made for ${String(htm ?? 'no method (htm)')}, not ${context.method}`);
    // The same text needs no normalising: clients mostly send the request URL as it is.
    if (htu !== context.url && (typeof htu !== 'string' || normalizedHtu(htu) !== normalizedHtu(context.url))) {
      throw invalidProof(`the DPoP proof was made for ${String(htu ?? 'no URL (htu)')}, not ${normalizedHtu(context.url)}`);
    }
    if (typeof iat !== 'number') throw invalidProof('the DPoP proof needs an iat');
    const expiresAtMs = (iat + PROOF_MAX_AGE_SECONDS) * 1000;
    if (expiresAtMs <= context.nowMs) throw invalidProof(`the DPoP proof is older than ${PROOF_MAX_AGE_SECONDS} seconds`);
    if ((iat - PROOF_CLOCK_SKEW_SECONDS) * 1000 > context.nowMs) throw invalidProof('the DPoP proof was issued in the future');
    // RFC 9449 defines neither, but a proof that limits its own life is held to it (RFC 7519 §4.1.4, §4.1.5).
    const nowSeconds = Math.floor(context.nowMs / 1000);
    if (exp !== undefined && (typeof exp !== 'number' || exp <= nowSeconds)) throw invalidProof('the DPoP proof has expired (exp)');
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > nowSeconds)) throw invalidProof('the DPoP proof is not valid yet (nbf)');
    if (ath !== undefined && ath !== (await accessTokenHash(context.accessToken))) throw invalidProof('the DPoP proof ath does not match the access token');
    // Last, so a proof refused for any other reason does not use up its jti.
    if (!(await this.#replays.firstUse(`${jkt}\n${jti}`, expiresAtMs, context.nowMs))) throw invalidProof('the DPoP proof was used before (its jti is not new)');
    return jkt;
  }

  #keyOf(encodedHeader: string): Promise<ProofKey> {
    const known = this.#headers.get(encodedHeader);
    if (known) return known.key;
    const key = this.#readHeader(encodedHeader);
    this.#headers.set(encodedHeader, { key, chars: encodedHeader.length });
    key.catch(() => this.#headers.delete(encodedHeader));
    return key;
  }

  async #readHeader(encodedHeader: string): Promise<ProofKey> {
    const header = jsonObjectOf(encodedHeader);
    if (header === null) throw invalidProof('the DPoP proof header cannot be read');
    if (header.typ !== 'dpop+jwt') throw invalidProof('the DPoP proof must have typ "dpop+jwt"');
    const { alg } = header;
    if (!isAcceptedAlgorithm(alg)) throw invalidProof(`the DPoP proof algorithm ${String(alg ?? '(none given)')} is not accepted; use an asymmetric one such as ES256`);
    // No JWS extension (RFC 7515 §4.1.11) is understood, so none may be required.
    if (header.crit !== undefined) throw invalidProof('the DPoP proof must not require extensions (crit)');
    const jwk = publicKeyOf(header.jwk, alg);
    const { calculateJwkThumbprint } = await jose();
    try {
      return { verify: await this.#signatures(alg, jwk), jkt: await calculateJwkThumbprint(jwk, 'sha256') };
    } catch {
      throw invalidProof(`the DPoP proof key cannot be used with ${alg}`);
    }
  }
}

/**
 * The members of the proof's embedded key that define it, once it is shown to be a public key that fits the
 * algorithm: its type, its curve, an RSA modulus of 2048 to 8192 bits. Other members (`use`, `key_ops`,
 * `alg`, ...) play no part: the signature is what proves the key.
 */
function publicKeyOf(jwk: unknown, alg: AcceptedAlgorithm): PublicJwk {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalidProof('the DPoP proof must embed its public key as "jwk"');
  const members = jwk as Record<string, unknown>;
  if (!PUBLIC_KEY_TYPES.has(members.kty as string) || PRIVATE_MEMBERS.some((name) => name in members)) {
    throw invalidProof('the DPoP proof key must be a public EC, RSA or OKP key');
  }
  const profile = ALGORITHM_PROFILES[alg];
  const unfit = () => invalidProof(`the DPoP proof key cannot be used with ${alg}`);
  if (members.kty !== profile.kty) throw unfit();
  const text = (name: string) => {
    const value = members[name];
    if (typeof value !== 'string' || value.length === 0) throw unfit();
    return value;
  };
  if (profile.kty === 'RSA') {
    const n = text('n');
    // Verifying with a huge RSA key takes long: such keys are refused before any work.
    if (n.length > MAX_RSA_MODULUS_CHARS) throw invalidProof('the DPoP proof key is larger than 8192 bits');
    if (rsaModulusBits(n) < MIN_RSA_MODULUS_BITS) throw invalidProof(`the DPoP proof key is smaller than ${MIN_RSA_MODULUS_BITS} bits`);
    return { kty: 'RSA', n, e: text('e') };
  }
  if (members.crv !== profile.crv) throw unfit();
  return profile.kty === 'EC' ? { kty: 'EC', crv: profile.crv, x: text('x'), y: text('y') } : { kty: 'OKP', crv: profile.crv, x: text('x') };
}

/** Bit length of a base64url RSA modulus; 0 when it cannot be decoded. */
function rsaModulusBits(n: string): number {
  let bytes;
  try {
    bytes = fromBase64Url(n);
  } catch {
    return 0;
  }
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  if (first === bytes.length) return 0;
  return (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first]!));
}
