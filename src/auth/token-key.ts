import { fromBase64Url, toBase64Url } from '../http/base64url.ts';
import type { StorageDriver } from '../storage/types.ts';

/** Where the bearer-token signing secret lives: under /.server/, which is never served over HTTP. */
export const TOKEN_KEY_PATH = '/.server/token-key.json';

async function readKey(storage: StorageDriver): Promise<Uint8Array | null> {
  const stored = await storage.get(TOKEN_KEY_PATH);
  if (!stored) return null;
  const record = JSON.parse(await new Response(stored.body).text()) as { k?: string };
  if (typeof record.k !== 'string') throw new Error(`${TOKEN_KEY_PATH} holds no key`);
  return fromBase64Url(record.k);
}

/**
 * The HS256 secret (256 random bits), generated on first use and kept in storage so tokens survive
 * restarts. Create-only: when two instances start together, both end up with the winner's key.
 */
export async function loadOrCreateTokenKey(storage: StorageDriver): Promise<Uint8Array> {
  const existing = await readKey(storage);
  if (existing) return existing;
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const record = JSON.stringify({ alg: 'HS256', k: toBase64Url(secret), created: new Date().toISOString() });
  if (await storage.put(TOKEN_KEY_PATH, record, { contentType: 'application/json', ifNoneMatch: '*' })) return secret;
  return (await readKey(storage))!;
}
