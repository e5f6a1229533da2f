/**
 * The token endpoint of third-party apps (RFC 6749 §3.2): authorization_code (with PKCE when the app sent a
 * challenge), refresh_token and client_credentials; client authentication by Basic or in the body. And the
 * revocation endpoint (RFC 7009).
 */
import { toBase64Url } from '../http/base64url.ts';
import { oauthError } from '../idp/oauth-error.ts';
import { clientAuthentication } from '../idp/token.ts';
import { secretMatches, type App } from './apps.ts';
import type { OAuthContext } from './context.ts';
import { readParameters, stringParameters } from './parameters.ts';
import { coveredBy, parseScopes } from './scopes.ts';
import type { IssuedTokens } from './tokens.ts';

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const invalidGrant = (detail: string) => oauthError(400, 'invalid_grant', detail);
/** Why a code is refused, once the request passed every check. */
const CODE_REFUSED = {
  unknown: 'The authorization code is not valid: unknown or expired.',
  reused: 'The authorization code was used already: the tokens issued from it are revoked too (it may have been stolen). Authorize the app again.',
} as const;

/** The app the request authenticates as; `invalid_client` for an unknown app or a wrong or missing secret. */
async function authenticatedApp(oauth: OAuthContext, request: Request, parameters: Record<string, string>): Promise<App> {
  const { clientId, secret } = clientAuthentication(request, parameters);
  const app = await oauth.apps.resolve(clientId);
  if (!(await secretMatches(app, secret))) {
    throw oauthError(401, 'invalid_client', 'The client authentication failed (wrong or missing client_secret).', { 'WWW-Authenticate': 'Basic' });
  }
  return app;
}

function tokenAnswer(issued: IssuedTokens, scopes: readonly string[]): Response {
  const body = {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    scope: scopes.join(' '),
    // Mastodon's token entity: when it was made, in seconds.
    created_at: Math.floor(issued.created / 1000),
    expires_in: issued.expiresIn,
    ...(issued.refreshToken && { refresh_token: issued.refreshToken }),
  };
  return Response.json(body, { headers: noStore });
}

async function pkceChallengeOf(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/**
 * `POST /oauth/token`. Everything that can refuse a request (the app's authentication, the code's app,
 * redirect_uri and PKCE verifier, a refresh token's app) is checked before a code or refresh token is used
 * up, so a request that fails burns nothing of anyone else's.
 */
export async function handleAppToken(oauth: OAuthContext, request: Request): Promise<Response> {
  const parameters = stringParameters(await readParameters(request));
  const app = await authenticatedApp(oauth, request, parameters);
  switch (parameters.grant_type) {
    case 'authorization_code': {
      if (!parameters.code) throw oauthError(400, 'invalid_request', 'Send the authorization code as "code".');
      if (!parameters.redirect_uri) throw oauthError(400, 'invalid_request', 'Send the redirect_uri of the authorization request.');
      let issued: IssuedTokens | undefined;
      const exchanged = await oauth.tokens.codes.exchange(parameters.code, async (grant) => {
        if (grant.clientId !== app.clientId) throw invalidGrant('The authorization code was issued to another app.');
        if (parameters.redirect_uri !== grant.redirectUri) throw invalidGrant('The redirect_uri differs from the one of the authorization request.');
        if (grant.codeChallenge) {
          if (!parameters.code_verifier || !PKCE_VERIFIER.test(parameters.code_verifier)) throw invalidGrant('The authorization request had a code_challenge: send its code_verifier (43 to 128 characters).');
          if ((await pkceChallengeOf(parameters.code_verifier)) !== grant.codeChallenge) throw invalidGrant('The code_verifier does not match the code_challenge (PKCE).');
        } else if (!app.secretHash) {
          throw invalidGrant('An app without a client secret must use PKCE (a code_challenge in the authorization request).');
        }
        const account = await oauth.accounts.get(grant.accountId);
        if (!account) throw invalidGrant('The account that allowed the app does not exist any more.');
        if (account.epoch !== grant.epoch) throw invalidGrant('The account has signed out everywhere or changed its password since: authorize the app again.');
      }, async (grant) => {
        const authorized = await oauth.tokens.authorize({ clientId: app.clientId, accountId: grant.accountId, epoch: grant.epoch, scopes: grant.scopes }, app.name, true);
        issued = authorized;
        return authorized.family;
      }, (grant, family) => oauth.tokens.endFamily(grant.accountId, family));
      if ('refused' in exchanged) throw invalidGrant(CODE_REFUSED[exchanged.refused]);
      return tokenAnswer(issued!, exchanged.grant.scopes);
    }
    case 'refresh_token': {
      if (!parameters.refresh_token) throw oauthError(400, 'invalid_request', 'Send the refresh token as "refresh_token".');
      const refreshed = await oauth.tokens.refresh(parameters.refresh_token, app.clientId);
      if ('refused' in refreshed) throw invalidGrant(refreshed.refused);
      return tokenAnswer(refreshed.issued, refreshed.grant.scopes);
    }
    case 'client_credentials': {
      if (!app.secretHash) throw oauthError(400, 'unauthorized_client', 'Only an app registered with POST /api/v1/apps (it has a client secret) may use client_credentials.');
      const scopes = parseScopes(parameters.scope);
      const beyond = scopes.filter((scope) => !coveredBy(scope, app.scopes ?? []));
      if (beyond.length > 0) throw oauthError(400, 'invalid_scope', `The app registered the scopes "${(app.scopes ?? []).join(' ')}" only, not ${beyond.join(', ')}.`);
      await oauth.apps.renew(app.clientId);
      return tokenAnswer(await oauth.tokens.appToken({ clientId: app.clientId, scopes }), scopes);
    }
    default:
      throw oauthError(400, 'unsupported_grant_type', `The grant_type "${(parameters.grant_type ?? '').slice(0, 100)}" is not supported; use authorization_code, refresh_token or client_credentials.`);
  }
}

/** `POST /oauth/revoke`: ends the token and its authorization when it is the app's; 200 either way (RFC 7009 §2.2). */
export async function handleRevoke(oauth: OAuthContext, request: Request): Promise<Response> {
  const parameters = stringParameters(await readParameters(request));
  const app = await authenticatedApp(oauth, request, parameters);
  if (!parameters.token) throw oauthError(400, 'invalid_request', 'Send the token to revoke as "token".');
  await oauth.tokens.revoke(parameters.token, app.clientId);
  return Response.json({}, { headers: noStore });
}
