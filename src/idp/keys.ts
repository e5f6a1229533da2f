import type { JWK } from 'jose';
import type { StorageDriver } from '../storage/types.ts';
import { SIGNING_KEY_PATH } from './paths.ts';

export const SIGNING_ALGORITHM = 'ES256';

/** The identity provider's token-signing key: private part for signing, public JWK for the JWKS. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function readKey(storage: StorageDriver): Promise<SigningKey | null> {
  const stored = await storage.get(SIGNING_KEY_PATH);
  if (!stored) return null;
  const { jwk } = JSON.parse(await new Response(stored.body).text()) as { jwk: JWK & { kid: string } };
  const { importJWK } = await import('jose');
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicJwk: { ...publicJwk, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
}

/**
 * The ES256 key pair, generated on first use and kept under /.server/ (never served) so tokens survive
 * restarts. Create-only: when two instances start together, both end up with the winner's key.
 */
export async function loadOrCreateSigningKey(storage: StorageDriver): Promise<SigningKey> {
  const existing = await readKey(storage);
  if (existing) return existing;
  const { generateKeyPair, exportJWK, calculateJwkThumbprint } = await import('jose');
  const pair = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(pair.privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  const record = JSON.stringify({ jwk: { ...jwk, kid }, created: new Date().toISOString() });
  await storage.put(SIGNING_KEY_PATH, record, { contentType: 'application/json', ifNoneMatch: '*' });
  return (await readKey(storage))!;
}
