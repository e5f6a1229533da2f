import { exportJwk, importJwk } from '@fedify/fedify';
import type { StorageDriver } from '../storage/types.ts';
import { KEY_PAIR_PATH } from './paths.ts';
import { readRecord, writeRecord } from './records.ts';

interface StoredKeyPair {
  privateKey: JsonWebKey;
  publicKey: JsonWebKey;
  created: string;
}

async function imported(stored: StoredKeyPair): Promise<CryptoKeyPair> {
  return { privateKey: await importJwk(stored.privateKey, 'private'), publicKey: await importJwk(stored.publicKey, 'public') };
}

/**
 * The actor's RSA key pair (RSASSA-PKCS1-v1_5, what Mastodon verifies), generated at first start and kept
 * in the data directory. Create-only: of two instances starting together, both use the winner's pair.
 */
export async function loadOrCreateActorKeys(storage: StorageDriver, now: () => number): Promise<CryptoKeyPair> {
  const existing = await readRecord<StoredKeyPair>(storage, KEY_PAIR_PATH);
  if (existing) return imported(existing.value);
  // 2048 bits, as Mastodon's own keys: fedify's generator makes 4096-bit keys, which take seconds to make.
  const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const record: StoredKeyPair = { privateKey: await exportJwk(pair.privateKey), publicKey: await exportJwk(pair.publicKey), created: new Date(now()).toISOString() };
  if (await writeRecord(storage, KEY_PAIR_PATH, record, true)) return pair;
  return imported((await readRecord<StoredKeyPair>(storage, KEY_PAIR_PATH))!.value);
}
