/**
 * Git sends credentials the way its credential helpers know them: HTTP Basic with a username and a
 * password. The git routes read the password as a token of a scheme the server's verifiers understand, so
 * every kind of credential plugs in as a verifier and needs nothing git-specific: a NIP-98 event (base64 of
 * its JSON, as in `Authorization: Nostr`) becomes Nostr credentials, anything else a bearer token.
 */
import { signedAs } from '../auth/nostr/verifier.ts';
import type { GitTarget } from './target.ts';

/** Base64 of a JSON object: what a NIP-98 token is, and what no JWT or opaque bearer token is (`.`, `-` and `_` are no base64). */
function isNostrToken(password: string): boolean {
  try {
    return atob(password).startsWith('{');
  } catch {
    return false;
  }
}

/** The `Authorization` value to authenticate a git request with: Basic credentials turned into Nostr or bearer credentials. */
export function gitAuthorization(header: string | null): string | null {
  if (!header) return null;
  const match = /^basic\s+(\S+)\s*$/i.exec(header.trim());
  if (!match) return header;
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(match[1]!), (char) => char.charCodeAt(0)));
  } catch {
    return header;
  }
  const colon = decoded.indexOf(':');
  // The username is free (git asks for one); the password is the token.
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  if (!password) return header;
  return isNostrToken(password) ? `Nostr ${password}` : `Bearer ${password}`;
}

/**
 * The request as the authenticator should see it: same URL and method, credentials in a scheme it reads.
 * A NIP-98 event is signed for the whole git step instead of one request, since git sends the same password
 * with each request of a fetch or push: its `u` tag is the repository's URL (ending in `/`) and its `method`
 * tag the git service (`git-upload-pack` to fetch, `git-receive-pack` to push). `repositoryUrl` is the
 * repository's URL as the client sees it (on the pod's host in subdomain mode).
 */
export function withGitCredentials(request: Request, target: GitTarget, repositoryUrl: string): Request {
  const authorization = gitAuthorization(request.headers.get('authorization'));
  if (authorization === request.headers.get('authorization')) return request;
  const headers = new Headers(request.headers);
  headers.set('authorization', authorization!);
  const seen = new Request(request.url, { method: request.method, headers });
  if (!authorization!.startsWith('Nostr ')) return seen;
  return signedAs(seen, { url: repositoryUrl, method: target.service, reusable: true });
}
