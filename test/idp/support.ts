import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { toBase64Url } from '../../src/http/base64url.ts';
import { BASE, makeApp, type TestApp } from '../support/app.ts';
import type { Platform } from '../../src/platform.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

export const PASSWORD = 'correct horse battery';

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});

/** An app with --idp and one account (alice) with her pod. */
export async function idpApp(flags: Record<string, unknown> = {}, platform: Partial<Platform> = {}): Promise<TestApp> {
  const app = makeApp({ idp: true, ...flags }, new MemoryDriver(), platform);
  const created = await app.request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
  if (created.status !== 201) throw new Error(`alice: ${created.status} ${await created.text()}`);
  return app;
}

/** A DPoP key pair and a way to sign proofs with it. */
export async function dpopKey(): Promise<{ jwk: JWK; thumbprint: string; proof(method: string, url: string, extra?: Record<string, unknown>): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return {
    jwk,
    thumbprint: await calculateJwkThumbprint(jwk),
    proof: (method, url, extra = {}) => signProof(privateKey, jwk, { htm: method, htu: url, ...extra }),
  };
}

export function signProof(key: CryptoKey, jwk: JWK, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
    .sign(key);
}

/** A PKCE verifier and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/** The cookies a response sets, as one Cookie header value (merged with earlier ones). */
export function cookiesFrom(response: Response, earlier = ''): string {
  const jar = new Map(earlier.split('; ').filter(Boolean).map((pair) => [pair.split('=')[0]!, pair] as const));
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    jar.set(pair.split('=')[0]!, pair);
  }
  return [...jar.values()].join('; ');
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in:\n${html}`);
  return match[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export { BASE };
