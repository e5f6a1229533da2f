import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AcceptedAlgorithm } from '../../src/auth/solid-oidc/algorithms.ts';
import { webCryptoSignatureVerifier, type PublicJwk, type SignatureVerifierFactory } from '../../src/auth/solid-oidc/signature.ts';
import { nodeSignatureVerifier } from '../../runtimes/node/signature-verifier.ts';

const DATA = new TextEncoder().encode('eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJodG0iOiJHRVQifQ');
/** Order of the P-256 group: `n - s` is the other (high or low) S of an ECDSA signature. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

interface Signer {
  alg: AcceptedAlgorithm;
  jwk: PublicJwk;
  sign(data: Uint8Array): Uint8Array<ArrayBuffer>;
}

function signer(alg: AcceptedAlgorithm, privateKey: KeyObject, publicKey: KeyObject): Signer {
  const { kty, crv, x, y, n, e } = publicKey.export({ format: 'jwk' });
  const jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined)) as unknown as PublicJwk;
  const hash = alg.startsWith('Ed') ? null : `sha${alg.slice(2)}`;
  const options = alg.startsWith('ES')
    ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const }
    : alg.startsWith('PS')
      ? { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 }
      : { key: privateKey };
  return { alg, jwk, sign: (data) => new Uint8Array(sign(hash, data, options)) };
}

const withKeys = (alg: AcceptedAlgorithm, keys: { privateKey: KeyObject; publicKey: KeyObject }) => signer(alg, keys.privateKey, keys.publicKey);
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const SIGNERS: Signer[] = [
  withKeys('ES256', p256),
  withKeys('ES384', generateKeyPairSync('ec', { namedCurve: 'P-384' })),
  withKeys('ES512', generateKeyPairSync('ec', { namedCurve: 'P-521' })),
  withKeys('RS256', rsa),
  withKeys('RS512', rsa),
  withKeys('PS256', rsa),
  withKeys('PS384', rsa),
  withKeys('EdDSA', ed),
  withKeys('Ed25519', ed),
];

const VERIFIERS: [string, SignatureVerifierFactory][] = [
  ['node:crypto', nodeSignatureVerifier],
  ['WebCrypto', webCryptoSignatureVerifier],
];

/** What both verifiers answer for a signature: they must agree, and the answer is returned for the test to check. */
async function bothSay(alg: AcceptedAlgorithm, jwk: PublicJwk, data: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const answers = [];
  for (const [, factory] of VERIFIERS) answers.push(await (await factory(alg, jwk))(data, signature));
  expect(answers[0], 'node:crypto and WebCrypto disagree').toBe(answers[1]);
  return answers[0]!;
}

describe('nodeSignatureVerifier accepts and refuses what WebCrypto does', () => {
  for (const { alg, jwk, sign: signWith } of SIGNERS) {
    it(`${alg}: a valid signature, and no altered one`, async () => {
      const signature = signWith(DATA);
      expect(await bothSay(alg, jwk, DATA, signature)).toBe(true);
      const flipped = signature.slice();
      flipped[flipped.length - 1]! ^= 1;
      expect(await bothSay(alg, jwk, DATA, flipped)).toBe(false);
      const otherData = DATA.slice();
      otherData[0]! ^= 1;
      expect(await bothSay(alg, jwk, otherData, signature)).toBe(false);
      expect(await bothSay(alg, jwk, DATA, signature.slice(0, -1))).toBe(false);
      expect(await bothSay(alg, jwk, DATA, new Uint8Array([...signature, 0]))).toBe(false);
      expect(await bothSay(alg, jwk, DATA, new Uint8Array(0))).toBe(false);
      expect(await bothSay(alg, jwk, DATA, new Uint8Array(signature.length).fill(0xff))).toBe(false);
    });
  }

  it('ES256: the same answer for a high-S signature (ECDSA malleability), and false for r or s out of range', async () => {
    const { alg, jwk, sign: signWith } = SIGNERS[0]!;
    const signature = signWith(DATA);
    const hex = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
    const bytes32 = (value: bigint) => Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'));
    const r = signature.slice(0, 32);
    const s = hex(signature.slice(32));
    const otherS = new Uint8Array([...r, ...bytes32(P256_ORDER - s)]);
    // OpenSSL, under both APIs, accepts either S: a proof's jti, not its signature bytes, is what replay checks key on.
    expect(await bothSay(alg, jwk, DATA, otherS)).toBe(true);
    expect(await bothSay(alg, jwk, DATA, new Uint8Array([...r, ...bytes32(0n)]))).toBe(false);
    expect(await bothSay(alg, jwk, DATA, new Uint8Array([...bytes32(0n), ...bytes32(s)]))).toBe(false);
    expect(await bothSay(alg, jwk, DATA, new Uint8Array([...bytes32(P256_ORDER), ...bytes32(s)]))).toBe(false);
    // A DER-encoded signature is not the JWS form.
    const der = new Uint8Array(sign('sha256', DATA, p256.privateKey));
    expect(await bothSay(alg, jwk, DATA, der)).toBe(false);
  });

  it('refuse a key on another curve than the algorithm names, a point off the curve, and a key of the wrong type', async () => {
    const p384 = SIGNERS[1]!.jwk;
    const offCurve = { ...SIGNERS[0]!.jwk, y: SIGNERS[0]!.jwk.x };
    const cases: [AcceptedAlgorithm, PublicJwk][] = [
      ['ES256', p384],
      ['ES384', SIGNERS[0]!.jwk],
      ['ES256', offCurve],
      ['ES256', SIGNERS[3]!.jwk],
      ['RS256', SIGNERS[0]!.jwk],
      ['EdDSA', SIGNERS[0]!.jwk],
    ];
    for (const [alg, jwk] of cases) {
      for (const [name, factory] of VERIFIERS) await expect(factory(alg, jwk), `${name} ${alg} ${JSON.stringify(jwk).slice(0, 40)}`).rejects.toThrow();
    }
  });
});
