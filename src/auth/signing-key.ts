import type { JWK } from 'jose';
import type { StorageDriver } from '../storage/types.ts';

export const SIGNING_ALGORITHM = 'ES256';

/** A token-signing key of the server: private part for signing, public JWK for a JWKS. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function readKey(storage: StorageDriver, path: string): Promise<SigningKey | null> {
  const stored = await storage.get(path);
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
 * An ES256 key pair, generated on first use and kept at `path` under /.server/ (never served) so what it
 * signs stays verifiable across restarts. Create-only: when two instances start together, both end up with
 * the winner's key.
 */
export async function loadOrCreateSigningKey(storage: StorageDriver, path: string): Promise<SigningKey> {
  const existing = await readKey(storage, path);
  if (existing) return existing;
  const { generateKeyPair, exportJWK, calculateJwkThumbprint } = await import('jose');
  const pair = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(pair.privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  const record = JSON.stringify({ jwk: { ...jwk, kid }, created: new Date().toISOString() });
  await storage.put(path, record, { contentType: 'application/json', ifNoneMatch: '*' });
  return (await readKey(storage, path))!;
}
