import type { Caller } from '../wac/access-control.ts';
import { requestOrigin } from '../http/request-origin.ts';

/** Identifies the caller of a request: at once when its credentials are known already (a warm request awaits nothing). */
export type Authenticator = (request: Request) => Caller | Promise<Caller>;

/** The `error` code of a refusal's challenge (RFC 6750 §3.1, RFC 9449 §7.1). */
export type CredentialErrorCode = 'invalid_token' | 'invalid_dpop_proof';

/**
 * What a verifier makes of credentials: a WebID (with the token's scopes when it is limited to some), a reason
 * to refuse them (an `invalid_token` unless `code` says otherwise), or null when they are not its kind.
 */
export type Verdict = { webId: string; scopes?: readonly string[] } | { error: string; code?: CredentialErrorCode } | null;

/** One kind of credentials in the `Authorization` header (server bearer tokens, Solid-OIDC DPoP tokens, ...). */
export interface CredentialVerifier {
  /** The `Authorization` scheme it reads, in lower case (`bearer`, `dpop`). */
  readonly scheme: string;
  /**
   * Checks `credentials` (the header after the scheme, trimmed). Several verifiers may share a scheme:
   * one that answers null leaves the credentials to the next. A verdict already at hand may be answered at once.
   */
  verify(request: Request, credentials: string): Verdict | Promise<Verdict>;
}

/**
 * Credentials that come with the connection rather than a header (a TLS client certificate). Asked, in
 * order, only when a request has no `Authorization` header: a header always says who the caller means to be.
 */
export interface ConnectionVerifier {
  /** Names the method in messages; a refusal's challenge carries it, so no `WWW-Authenticate` scheme claims it. */
  readonly name: string;
  verify(request: Request): Promise<Verdict>;
}

/** The scheme named in a `WWW-Authenticate` challenge or an error message: `Bearer`, `DPoP`. */
export const displayName = (scheme: string) => (scheme === 'dpop' ? 'DPoP' : scheme[0]!.toUpperCase() + scheme.slice(1));

/**
 * One authenticator over every verifier: the `Authorization` scheme picks the verifiers to ask, in order;
 * without the header, the connection verifiers are asked. Credentials nobody accepts leave the caller
 * anonymous with a `credentialError`, which the access check turns into a 401 wherever identity is needed.
 */
export function authenticatorFrom(verifiers: readonly CredentialVerifier[], connectionVerifiers: readonly ConnectionVerifier[] = []): Authenticator {
  const byScheme = new Map<string, CredentialVerifier[]>();
  for (const verifier of verifiers) byScheme.set(verifier.scheme, [...(byScheme.get(verifier.scheme) ?? []), verifier]);
  const accepted = [...byScheme.keys()].map((scheme) => `"${displayName(scheme)} <token>"`).join(' or ');
  return (request) => {
    const caller: Caller = { webId: null, origin: request.headers.get('origin'), serverOrigin: requestOrigin(request.url) };
    const header = request.headers.get('authorization')?.trim();
    if (!header) return connectionVerifiers.length === 0 ? caller : fromConnection(request, caller);
    const space = header.search(/\s/);
    const scheme = space === -1 ? header : header.slice(0, space);
    const credentials = space === -1 ? '' : header.slice(space).trim();
    const candidates = byScheme.get(scheme.toLowerCase());
    if (!candidates) return { ...caller, credentialError: `the ${scheme || 'empty'} authorization scheme is not supported here; send ${accepted}` };
    const first = candidates[0]!.verify(request, credentials);
    // A verdict at hand (a token verified before) makes no promise.
    if (!(first instanceof Promise) && first !== null) return judged(caller, first, candidates[0]!.scheme);
    return inTurn(request, caller, scheme, credentials, candidates, first);
  };

  /** The verifiers of a scheme (all named by it) asked in turn, from the first one's verdict on. */
  async function inTurn(request: Request, caller: Caller, scheme: string, credentials: string, candidates: readonly CredentialVerifier[], first: Verdict | Promise<Verdict>): Promise<Caller> {
    let verdict = await first;
    for (let index = 1; verdict === null && index < candidates.length; index++) verdict = await candidates[index]!.verify(request, credentials);
    if (verdict !== null) return judged(caller, verdict, candidates[0]!.scheme);
    return { ...caller, credentialError: `the ${scheme} credentials are malformed, unknown, revoked or not issued by any issuer this server accepts` };
  }

  function judged(caller: Caller, verdict: NonNullable<Verdict>, scheme: string): Caller {
    if ('webId' in verdict) return verdict.scopes ? { ...caller, webId: verdict.webId, scopes: verdict.scopes } : { ...caller, webId: verdict.webId };
    return { ...caller, credentialError: verdict.error, credentialChallenge: { scheme, code: verdict.code ?? 'invalid_token' } };
  }

  async function fromConnection(request: Request, caller: Caller): Promise<Caller> {
    for (const verifier of connectionVerifiers) {
      const verdict = await verifier.verify(request);
      if (verdict === null) continue;
      if ('webId' in verdict) return { ...caller, webId: verdict.webId };
      return { ...caller, credentialError: verdict.error, credentialChallenge: { scheme: verifier.name, code: verdict.code ?? 'invalid_token' } };
    }
    return caller;
  }
}
