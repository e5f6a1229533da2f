import type { Platform } from '../../platform.ts';
import type { CredentialVerifier } from '../authenticate.ts';
import type { DocumentSources } from '../solid-oidc/documents.ts';
import { MemoryReplayCache, type ReplayCache } from '../solid-oidc/replay-cache.ts';
import { DidLinks } from './did-link.ts';
import { didOfKey, eventFromToken, HTTP_AUTH_WINDOW_SECONDS, httpAuthProblem } from './http-auth.ts';

export interface NostrAuthOptions extends HttpAuthCheckOptions {
  platform: Platform;
  local(request: Request): Promise<Response>;
  /** Base URL of the DID resolver (`<resolver><pubkey>.json`); this server's own when absent. */
  didResolver?: string;
}

/** What a request must be signed for when it is not its own URL and method (git, see `signedAs`). */
export interface SignedScope {
  url: string;
  method: string;
  /** The same event may authorize several requests within its time window (git sends one credential per step). */
  reusable: boolean;
}

const scopes = new WeakMap<Request, SignedScope>();

/**
 * Marks a request the server itself built (never one a client sent) as authorized by an event for `scope`
 * instead of its own URL and method: a git push is several requests under one credential.
 */
export function signedAs(request: Request, scope: SignedScope): Request {
  scopes.set(request, scope);
  return request;
}

/** @noble/hashes, loaded with the first signed body: a start that checks none does not pay for it. */
let hashing: Promise<[typeof import('@noble/hashes/sha2.js'), typeof import('@noble/hashes/utils.js')]> | undefined;

/**
 * Hex SHA-256 of the request body, read from a clone so the handler still reads the original; null for an
 * empty body (runtimes give every DELETE a body stream), undefined when it is too large.
 */
async function bodyHashOf(request: Request, maxBytes: number): Promise<string | null | undefined> {
  const [{ sha256 }, { bytesToHex }] = await (hashing ??= Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/utils.js')]));
  const hash = sha256.create();
  let seen = 0;
  const reader = request.clone().body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return seen === 0 ? null : bytesToHex(hash.digest());
    seen += value.byteLength;
    if (seen > maxBytes) {
      // Not awaited: cancelling one branch of a tee settles only once the other (the handler's) is cancelled too.
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    hash.update(value);
  }
}

export interface HttpAuthCheckOptions {
  now: () => number;
  /** Largest body hashed for the `payload` check (the server's body limit: larger bodies are refused anyway). */
  maxBodyBytes: number;
  replays?: ReplayCache;
}

/** Checks NIP-98 credentials: the signing key, or why they do not authorize the request. */
export type HttpAuthCheck = (request: Request, token: string) => Promise<{ pubkey: string } | { error: string }>;

/**
 * A NIP-98 check: an event of kind 27235 signed for this request's URL and method (and body, when it has
 * one), fresh, authentic and used once. Shared by the `Nostr` verifier and the IdP's Nostr sign-in.
 */
export function httpAuthCheck(options: HttpAuthCheckOptions): HttpAuthCheck {
  const replays = options.replays ?? new MemoryReplayCache();
  let integrity: Promise<typeof import('../../nostr/verify.ts')> | undefined;
  return async (request, token) => {
    const event = eventFromToken(token);
    if (typeof event === 'string') return { error: event };
    const scope = scopes.get(request);
    let bodyHash: string | null | undefined = null;
    if (!scope && request.body !== null) {
      bodyHash = await bodyHashOf(request, options.maxBodyBytes);
      if (bodyHash === undefined) return { error: 'the request body is too large to check against the event\'s payload tag' };
    }
    const nowMs = options.now();
    const target = { url: scope?.url ?? request.url, method: scope?.method ?? request.method, bodyHash, nowSeconds: Math.floor(nowMs / 1000) };
    const problem = httpAuthProblem(event, target);
    if (problem) return { error: problem };
    const integrityProblem = (await (integrity ??= import('../../nostr/verify.ts'))).integrityProblem(event);
    if (integrityProblem) return { error: `the Nostr event is not authentic: ${integrityProblem}` };
    if (!scope?.reusable) {
      // Keyed by signature, not id: two same requests in one second give events with the same id, and each
      // signing makes a new signature (BIP-340 signatures cannot be changed into another valid one without the key).
      // Remembered until the event is too old to pass the created_at check anyway.
      const expiresAtMs = (event.created_at + HTTP_AUTH_WINDOW_SECONDS + 1) * 1000;
      if (!(await replays.firstUse(`nostr ${event.sig}`, expiresAtMs, nowMs))) return { error: 'this Nostr event was used already: sign a new one for each request' };
    }
    return { pubkey: event.pubkey };
  };
}

/**
 * `Authorization: Nostr <base64 event>` (NIP-98, see httpAuthCheck). The agent is `did:nostr:<pubkey>`, or
 * the WebID the key is linked with both ways (see DidLinks).
 */
export function nostrVerifier(options: NostrAuthOptions): CredentialVerifier {
  const sources: DocumentSources = { local: options.local, ...(options.platform.fetch && { outbound: options.platform.fetch }) };
  const links = new DidLinks(sources, options.didResolver, options.now, (line) => options.platform.log(line));
  const check = httpAuthCheck(options);
  return {
    scheme: 'nostr',
    async verify(request, token) {
      const checked = await check(request, token);
      if ('error' in checked) return checked;
      return { webId: (await links.webIdOf(checked.pubkey, new URL(request.url).origin)) ?? didOfKey(checked.pubkey) };
    },
  };
}
