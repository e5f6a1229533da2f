import { loadOrCreateSigningKey as loadOrCreateKeyAt, type SigningKey } from '../auth/signing-key.ts';
import type { StorageDriver } from '../storage/types.ts';
import { SIGNING_KEY_PATH } from './paths.ts';

export { SIGNING_ALGORITHM, type SigningKey } from '../auth/signing-key.ts';

/** The identity provider's token-signing key, kept under /.server/ so tokens survive restarts. */
export function loadOrCreateSigningKey(storage: StorageDriver): Promise<SigningKey> {
  return loadOrCreateKeyAt(storage, SIGNING_KEY_PATH);
}
