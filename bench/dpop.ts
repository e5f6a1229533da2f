/**
 * The DPoP workload's issuer and client: a loopback Solid-OIDC issuer (discovery, JWKS and a WebID profile
 * listing it) and a client key that signs a fresh proof for every request synchronously (node:crypto), so the
 * load generator can make one per request without a pool that could run dry.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT } from 'jose';

export interface BenchDpop {
  webId: string;
  /** A DPoP-bound access token for the WebID, valid for an hour. */
  token: string;
  /** A fresh proof (new jti, current iat) for a request. */
  proof(method: string, url: string): string;
  close(): Promise<void>;
}

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

function signProof(privateKey: KeyObject, jwk: Record<string, unknown>, method: string, url: string): string {
  const header = base64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk }));
  const claims = base64url(JSON.stringify({ htm: method, htu: url, jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000) }));
  const input = `${header}.${claims}`;
  return `${input}.${base64url(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`;
}

/** Starts the issuer on loopback (the server under test needs --allow-private-fetch to reach it). */
export async function startBenchDpop(): Promise<BenchDpop> {
  const issuerKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const clientKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const issuerJwk = { ...(await exportJWK(issuerKeys.publicKey)), kid: 'bench', alg: 'ES256' };
  const clientJwk = (await exportJWK(clientKeys.publicKey)) as Record<string, unknown>;
  const jkt = base64url(createHash('sha256').update(JSON.stringify({ crv: clientJwk.crv, kty: clientJwk.kty, x: clientJwk.x, y: clientJwk.y })).digest());

  let issuer = '';
  const server: Server = createServer((req, res) => {
    const documents: Record<string, [string, string]> = {
      '/.well-known/openid-configuration': ['application/json', JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` })],
      '/jwks': ['application/json', JSON.stringify({ keys: [issuerJwk] })],
      '/profile': ['text/turtle', `<#me> <http://www.w3.org/ns/solid/terms#oidcIssuer> <${issuer}>.\n`],
    };
    const document = documents[req.url ?? ''];
    if (!document) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': document[0] }).end(document[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webId = `${issuer}/profile#me`;
  const token = await new SignJWT({ webid: webId, cnf: { jkt } })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(['solid', 'bench'])
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(issuerKeys.privateKey);
  return {
    webId,
    token,
    proof: (method, url) => signProof(clientKeys.privateKey, clientJwk, method, url),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
