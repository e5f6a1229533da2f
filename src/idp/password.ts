import { fromBase64Url, toBase64Url } from '../http/base64url.ts';

/** A stored password: scrypt with its parameters and a per-account salt, so the cost can be raised later. */
export interface PasswordHash {
  alg: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

/** 2^14 x 8 x 128 bytes = 16 MiB per hash: memory-hard, yet quick enough in plain JavaScript on every runtime. */
const COST = { N: 2 ** 14, r: 8, p: 1 };
const KEY_BYTES = 32;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** Loaded with the first password: a server without --idp never needs it. */
const scryptAsync: typeof import('@noble/hashes/scrypt.js').scryptAsync = async (...args) => (await import('@noble/hashes/scrypt.js')).scryptAsync(...args);

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await scryptAsync(password, salt, { ...COST, dkLen: KEY_BYTES });
  return { alg: 'scrypt', ...COST, salt: toBase64Url(salt), hash: toBase64Url(hash) };
}

/** Compares in constant time, so the answer's timing tells nothing about how much of the hash matched. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = fromBase64Url(stored.hash);
  const actual = await scryptAsync(password, fromBase64Url(stored.salt), { N: stored.N, r: stored.r, p: stored.p, dkLen: expected.length });
  let difference = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= actual[i]! ^ expected[i]!;
  return difference === 0;
}

/** A password with which the account may be made at all; null when it is fine, else why not. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string' || password.length === 0) return 'a password is required';
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password may have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
