/**
 * Git sends credentials the way its credential helpers know them: HTTP Basic with a username and a
 * password. The git routes read the password as a token of a scheme the server's verifiers understand, so
 * every kind of credential plugs in as a verifier and needs nothing git-specific.
 */

/** The `Authorization` value to authenticate a git request with: Basic credentials turned into a bearer token. */
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
  // The username is free (git asks for one); the password is the pod bearer token.
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  return password ? `Bearer ${password}` : header;
}

/** The request as the authenticator should see it: same URL and method, credentials in a scheme it reads. */
export function withGitCredentials(request: Request): Request {
  const authorization = gitAuthorization(request.headers.get('authorization'));
  if (authorization === request.headers.get('authorization')) return request;
  const headers = new Headers(request.headers);
  headers.set('authorization', authorization!);
  return new Request(request.url, { method: request.method, headers });
}
