import type { JWK } from 'jose';
import { toBase64Url } from '../../http/base64url.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import { jose } from '../jose.ts';
import { isAcceptedAlgorithm } from './algorithms.ts';
import { invalidProof } from './refusal.ts';
import type { ReplayCache } from './replay-cache.ts';

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
  key: CryptoKey;
  /** RFC 7638 SHA-256 thumbprint: what a bound token's `cnf.jkt` names. */
  jkt: string;
}

/**
 * Verifies DPoP proofs (RFC 9449 §4.3) and remembers their `jti`s. Imported keys and their thumbprints are
 * kept by key, so a client's later proofs cost one signature check.
 */
export class DpopProofVerifier {
  readonly #replays: ReplayCache;
  readonly #keys = new BoundedCache<string, Promise<ProofKey>>(10_000);

  constructor(replays: ReplayCache) {
    this.#replays = replays;
  }

  /** The thumbprint of the proof's key; throws a `CredentialRefusal` (`invalid_dpop_proof`) for any fault. */
  async verify(proof: string, context: ProofContext): Promise<string> {
    if (!COMPACT_JWS.test(proof)) throw invalidProof('the DPoP header must hold exactly one proof, a signed JWT');
    const { decodeProtectedHeader, jwtVerify } = await jose();
    let header;
    try {
      header = decodeProtectedHeader(proof);
    } catch {
      throw invalidProof('the DPoP proof header cannot be read');
    }
    if (header.typ !== 'dpop+jwt') throw invalidProof('the DPoP proof must have typ "dpop+jwt"');
    if (!isAcceptedAlgorithm(header.alg)) throw invalidProof(`the DPoP proof algorithm ${String(header.alg ?? '(none given)')} is not accepted; use an asymmetric one such as ES256`);
    const { key, jkt } = await this.#keyOf(header.jwk, header.alg);

    let claims;
    try {
      ({ payload: claims } = await jwtVerify(proof, key, { algorithms: [header.alg], typ: 'dpop+jwt', currentDate: new Date(context.nowMs) }));
    } catch {
      throw invalidProof('the DPoP proof signature is not valid for its embedded key');
    }
    const { jti, htm, htu, iat, ath } = claims as { jti?: unknown; htm?: unknown; htu?: unknown; iat?: unknown; ath?: unknown };
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw invalidProof('the DPoP proof needs a jti');
    if (htm !== context.method) throw invalidProof(`the DPoP proof was made for ${String(htm ?? 'no method (htm)')}, not ${context.method}`);
    const target = normalizedHtu(context.url);
    if (typeof htu !== 'string' || normalizedHtu(htu) !== target) throw invalidProof(`the DPoP proof was made for ${String(htu ?? 'no URL (htu)')}, not ${target}`);
    if (typeof iat !== 'number') throw invalidProof('the DPoP proof needs an iat');
    const expiresAtMs = (iat + PROOF_MAX_AGE_SECONDS) * 1000;
    if (expiresAtMs <= context.nowMs) throw invalidProof(`the DPoP proof is older than ${PROOF_MAX_AGE_SECONDS} seconds`);
    if ((iat - PROOF_CLOCK_SKEW_SECONDS) * 1000 > context.nowMs) throw invalidProof('the DPoP proof was issued in the future');
    if (ath !== undefined && ath !== (await accessTokenHash(context.accessToken))) throw invalidProof('the DPoP proof ath does not match the access token');
    // Last, so a proof refused for any other reason does not use up its jti.
    if (!(await this.#replays.firstUse(`${jkt}\n${jti}`, expiresAtMs, context.nowMs))) throw invalidProof('the DPoP proof was used before (its jti is not new)');
    return jkt;
  }

  #keyOf(jwk: unknown, alg: string): Promise<ProofKey> {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalidProof('the DPoP proof must embed its public key as "jwk"');
    const members = jwk as Record<string, unknown>;
    if (!PUBLIC_KEY_TYPES.has(members.kty as string) || PRIVATE_MEMBERS.some((name) => name in members)) {
      throw invalidProof('the DPoP proof key must be a public EC, RSA or OKP key');
    }
    // Verifying with a huge RSA key takes long: such keys are refused before any work.
    if (typeof members.n === 'string' && members.n.length > MAX_RSA_MODULUS_CHARS) throw invalidProof('the DPoP proof key is larger than 8192 bits');
    const id = [alg, members.kty, members.crv, members.x, members.y, members.n, members.e].map((part) => (typeof part === 'string' ? part : '')).join('|');
    let known = this.#keys.get(id);
    if (!known) {
      known = importProofKey(members as JWK, alg);
      this.#keys.set(id, known);
      known.catch(() => this.#keys.delete(id));
    }
    return known;
  }
}

async function importProofKey(jwk: JWK, alg: string): Promise<ProofKey> {
  const { importJWK, calculateJwkThumbprint } = await jose();
  try {
    const key = await importJWK(jwk, alg, { extractable: false });
    if (key instanceof Uint8Array || key.type !== 'public') throw new Error('not a public key');
    return { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
  } catch {
    throw invalidProof(`the DPoP proof key cannot be used with ${alg}`);
  }
}
