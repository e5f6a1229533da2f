import { toBase64Url } from '../http/base64url.ts';

/** 256 random bits as base64url: codes, refresh tokens, client secrets, session and CSRF values. */
export function randomToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** SHA-256 as base64url: how secrets are kept at rest (they are random, so a plain hash suffices). */
export async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** String comparison whose time does not depend on where the strings differ. */
export function equalInConstantTime(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return difference === 0;
}
