import { exportJwk, generateCryptoKeyPair, importJwk } from '@fedify/fedify';
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
  const pair = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const record: StoredKeyPair = { privateKey: await exportJwk(pair.privateKey), publicKey: await exportJwk(pair.publicKey), created: new Date(now()).toISOString() };
  if (await writeRecord(storage, KEY_PAIR_PATH, record, true)) return pair;
  return imported((await readRecord<StoredKeyPair>(storage, KEY_PAIR_PATH))!.value);
}
