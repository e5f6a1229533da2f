import { calculateJwkThumbprint } from 'jose';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DpopProofVerifier } from '../../../src/auth/solid-oidc/dpop-proof.ts';
import { MemoryReplayCache } from '../../../src/auth/solid-oidc/replay-cache.ts';
import { webCryptoSignatureVerifier, type SignatureVerifierFactory } from '../../../src/auth/solid-oidc/signature.ts';
import { nodeSignatureVerifier } from '../../../runtimes/node/signature-verifier.ts';

const URL_ = 'https://pod.example/alice/private/';
const NOW_MS = 1_800_000_000_000;
const NOW = NOW_MS / 1000;
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A client that signs proofs by hand, so tests can send what a library would refuse to make. */
function client(keys = generateKeyPairSync('ec', { namedCurve: 'P-256' }), alg = 'ES256') {
  const jwk = keys.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const hash = alg.startsWith('ES') ? `sha${alg.slice(2)}` : 'sha256';
  const signWith = (key: KeyObject, input: string) => Buffer.from(sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })).toString('base64url');
  return {
    jwk,
    proof(options: { header?: Record<string, unknown>; claims?: Record<string, unknown> | string; signature?: string } = {}) {
      const header = b64({ typ: 'dpop+jwt', alg, jwk, ...options.header });
      const claims = b64(typeof options.claims === 'string' ? options.claims : { htm: 'GET', htu: URL_, jti: crypto.randomUUID(), iat: NOW, ...options.claims });
      return `${header}.${claims}.${options.signature ?? signWith(keys.privateKey, `${header}.${claims}`)}`;
    },
  };
}

const context = { method: 'GET', url: URL_, accessToken: 'token', nowMs: NOW_MS };

for (const [name, signatures] of [
  ['node:crypto', nodeSignatureVerifier],
  ['WebCrypto', webCryptoSignatureVerifier],
] as [string, SignatureVerifierFactory][]) {
  describe(`DPoP proofs, signatures checked with ${name}`, () => {
    const verifier = () => new DpopProofVerifier(new MemoryReplayCache(), signatures);

    it('accept a valid proof and answer the RFC 7638 thumbprint of its key', async () => {
      const alice = client();
      expect(await verifier().verify(alice.proof(), context)).toBe(await calculateJwkThumbprint(alice.jwk as never, 'sha256'));
    });

    it('refuse a forged signature under a header already seen with a valid one', async () => {
      const proofs = verifier();
      const alice = client();
      await proofs.verify(alice.proof(), context);
      const forged = alice.proof({ signature: alice.proof().split('.')[2] });
      await expect(proofs.verify(forged, context)).rejects.toThrow(/signature is not valid/);
      const shortened = alice.proof().slice(0, -4);
      await expect(proofs.verify(shortened, context)).rejects.toThrow(/signature is not valid/);
    });

    it('refuse a refused header every time it comes', async () => {
      const proofs = verifier();
      const wrongType = client().proof({ header: { typ: 'JWT' } });
      await expect(proofs.verify(wrongType, context)).rejects.toThrow(/typ/);
      await expect(proofs.verify(wrongType, context)).rejects.toThrow(/typ/);
    });

    it('refuse a proof that requires an extension (crit)', async () => {
      await expect(verifier().verify(client().proof({ header: { crit: ['b64'], b64: true } }), context)).rejects.toThrow(/crit/);
    });

    it('hold a proof to its own exp and nbf', async () => {
      const alice = client();
      await expect(verifier().verify(alice.proof({ claims: { exp: NOW - 1 } }), context)).rejects.toThrow(/expired \(exp\)/);
      await expect(verifier().verify(alice.proof({ claims: { exp: 'later' } }), context)).rejects.toThrow(/expired \(exp\)/);
      await expect(verifier().verify(alice.proof({ claims: { nbf: NOW + 10 } }), context)).rejects.toThrow(/not valid yet/);
      expect(await verifier().verify(alice.proof({ claims: { exp: NOW + 60, nbf: NOW - 60 } }), context)).toMatch(/^[\w-]{43}$/);
    });

    it('refuse signed claims that are not a JSON object', async () => {
      for (const claims of ['[1,2]', 'null', '{"htm":', '\xff\xfe']) {
        await expect(verifier().verify(client().proof({ claims }), context), claims).rejects.toThrow(/claims cannot be read/);
      }
    });

    it('refuse a key that does not fit the algorithm: another curve, another type, an RSA key under 2048 bits', async () => {
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
      await expect(verifier().verify(client(p384, 'ES256').proof(), context)).rejects.toThrow(/cannot be used with ES256/);
      const rsaJwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
      await expect(verifier().verify(client().proof({ header: { jwk: rsaJwk } }), context)).rejects.toThrow(/cannot be used with ES256/);
      const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
      await expect(verifier().verify(client().proof({ header: { alg: 'RS256', jwk: small } }), context)).rejects.toThrow(/smaller than 2048 bits/);
      const offCurve = { ...client().jwk, y: client().jwk.x };
      await expect(verifier().verify(client().proof({ header: { jwk: offCurve } }), context)).rejects.toThrow(/cannot be used with ES256/);
    });

    it('read only the members that define the key: use, key_ops and alg change neither the check nor the thumbprint', async () => {
      const alice = client();
      const plain = await verifier().verify(alice.proof(), context);
      const decorated = alice.proof({ header: { jwk: { ...alice.jwk, use: 'sig', key_ops: ['verify'], alg: 'ES256', kid: 'k1' } } });
      expect(await verifier().verify(decorated, context)).toBe(plain);
    });
  });
}
