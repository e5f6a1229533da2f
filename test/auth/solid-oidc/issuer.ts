/**
 * A Solid-OIDC issuer for tests, made of real jose keys and a real loopback HTTP server that serves its
 * discovery document, its JWKS and WebID profiles; plus a DPoP client that signs proofs.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessTokenHash } from '../../../src/auth/solid-oidc/dpop-proof.ts';

export interface TestIssuer {
  /** Origin of the loopback server, without a trailing slash; the issuer URL unless `issuerPath` was given. */
  origin: string;
  issuer: string;
  /** The issuer's public key set as served at /jwks, for tests that serve it elsewhere. */
  jwks: string;
  /** Every request the server received, as `METHOD path`. */
  requests: string[];
  /** Serves a document at a path (a WebID profile, or anything else). */
  serve(path: string, contentType: string, body: string, status?: number): void;
  /** A WebID profile at `path` (`#me` in it) listing `issuers` as solid:oidcIssuer; returns the WebID. */
  profile(path: string, issuers: readonly string[]): string;
  /** Replaces the signing key by a new one with another key id (the JWKS then holds only the new key). */
  rotateKey(): Promise<void>;
  /** An access token signed by the issuer's key. */
  token(claims: Record<string, unknown>, options?: { alg?: string; expiresInSeconds?: number; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  let { privateKey, publicKey } = await generateKeyPair('ES256');
  let kid = 'issuer-key-1';
  let publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const documents = new Map<string, { status: number; type: string; body: string }>();
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    const document = documents.get((req.url ?? '/').split('?')[0]!);
    if (!document) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(document.status, { 'content-type': document.type, ...(document.status >= 300 && document.status < 400 && { location: document.body }) });
    res.end(document.status >= 300 && document.status < 400 ? '' : document.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = origin;
  const serve = (path: string, type: string, body: string, status = 200) => documents.set(path, { status, type, body });
  serve('/.well-known/openid-configuration', 'application/json', JSON.stringify({ issuer: issuer + '/', jwks_uri: `${origin}/jwks` }));
  serve('/jwks', 'application/json', JSON.stringify({ keys: [publicJwk] }));
  return {
    origin,
    issuer,
    get jwks() {
      return JSON.stringify({ keys: [publicJwk] });
    },
    requests,
    serve,
    profile(path, issuers) {
      const listed = issuers.map((iri) => `<${iri}>`).join(', ');
      serve(path, 'text/turtle', `@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n<#me> a <http://xmlns.com/foaf/0.1/Person>${issuers.length ? `; solid:oidcIssuer ${listed}` : ''}.\n`);
      return `${origin}${path}#me`;
    },
    async rotateKey() {
      ({ privateKey, publicKey } = await generateKeyPair('ES256'));
      kid = `issuer-key-${Number(kid.split('-').at(-1)) + 1}`;
      publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
      serve('/jwks', 'application/json', JSON.stringify({ keys: [publicJwk] }));
    },
    async token(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: ['solid', 'client-app'], iat: now, exp: now + (options.expiresInSeconds ?? 300), ...claims })
        .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid ?? kid, typ: 'at+jwt' })
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface DpopClient {
  jwk: JWK;
  /** RFC 7638 thumbprint of the client's public key: the `cnf.jkt` of its tokens. */
  jkt: string;
  /** A proof for a request; `claims` override or add claims, `header` header members. */
  proof(method: string, url: string, options?: { accessToken?: string; claims?: Record<string, unknown>; header?: Record<string, unknown> }): Promise<string>;
}

export async function dpopClient(): Promise<DpopClient> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return {
    jwk,
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    async proof(method, url, options = {}) {
      const claims: Record<string, unknown> = { htm: method, htu: url, jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000) };
      if (options.accessToken) claims.ath = await accessTokenHash(options.accessToken);
      return new SignJWT({ ...claims, ...options.claims }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...options.header }).sign(privateKey);
    },
  };
}
