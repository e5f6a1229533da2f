/**
 * Who sends WebhookChannel2023 notifications, and how a receiver can check it. The channel spec asks for
 * an authenticated request "using the identity provided as sender"; like Community Solid Server, each POST
 * carries `Authorization: DPoP <token>` and a `DPoP` proof, a Solid-OIDC access token whose `webid` is the
 * sender's WebID. That WebID names an issuer of its own (not the identity provider, which may be off), whose
 * discovery document and JWKS verify the token: a receiver that verifies Solid-OIDC requests (for example
 * with @solid/access-token-verifier) verifies these with no change.
 */
import { toBase64Url } from '../http/base64url.ts';
import { loadOrCreateSigningKey, SIGNING_ALGORITHM, type SigningKey } from '../auth/signing-key.ts';
import { jose } from '../auth/jose.ts';
import type { StorageDriver } from '../storage/types.ts';
import { WEBHOOK_PATH } from './discovery.ts';
/** The sender's WebID, also named `sender` in every channel description. */
export const SENDER_PATH = `${WEBHOOK_PATH}webId`;
/** The issuer of the sender's tokens; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
export const ISSUER_PATH = `${WEBHOOK_PATH}issuer`;
export const DISCOVERY_PATH = `${ISSUER_PATH}/.well-known/openid-configuration`;
export const JWKS_PATH = `${ISSUER_PATH}/jwks`;
const KEY_PATH = '/.server/notifications/webhook-key.json';
/** Lifetime of a token; each attempt of each notification gets its own. */
const TOKEN_SECONDS = 300;

/** The WebID of the sender: a profile that names the issuer of its tokens. */
export function senderProfile(origin: string): Response {
  const body = `@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n<${origin}${SENDER_PATH}> solid:oidcIssuer <${origin}${ISSUER_PATH}>.\n`;
  return new Response(body, { headers: { 'Content-Type': 'text/turtle' } });
}

/** OpenID discovery for the sender's issuer: only what verifying its tokens needs. */
export function senderIssuerDiscovery(origin: string): Response {
  return Response.json({
    issuer: origin + ISSUER_PATH,
    jwks_uri: origin + JWKS_PATH,
    id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    subject_types_supported: ['public'],
    response_types_supported: [],
  });
}

export class WebhookSender {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  #key: Promise<SigningKey> | null = null;

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  key(): Promise<SigningKey> {
    return (this.#key ??= loadOrCreateSigningKey(this.#storage, KEY_PATH).catch((error: unknown) => {
      this.#key = null;
      throw error;
    }));
  }

  async jwks(): Promise<Response> {
    return Response.json({ keys: [(await this.key()).publicJwk] });
  }

  /** `Authorization` and `DPoP` for one POST to `sendTo`, from the sender of channels made at `origin`. */
  async credentials(origin: string, sendTo: string): Promise<{ authorization: string; dpop: string }> {
    const { SignJWT } = await jose();
    const key = await this.key();
    const webId = origin + SENDER_PATH;
    const issuedAt = Math.floor(this.#now() / 1000);
    const token = await new SignJWT({ webid: webId, azp: webId, sub: webId, client_id: webId, cnf: { jkt: key.kid } })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid })
      .setIssuer(origin + ISSUER_PATH)
      .setAudience([webId, 'solid'])
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(key.privateKey);
    const ath = toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));
    const proof = await new SignJWT({ htu: sendTo, htm: 'POST', ath })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'dpop+jwt', jwk: key.publicJwk })
      .setIssuedAt(issuedAt)
      .setJti(crypto.randomUUID())
      .sign(key.privateKey);
    return { authorization: `DPoP ${token}`, dpop: proof };
  }
}
