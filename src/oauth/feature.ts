/**
 * OAuth 2.0 for third-party apps (with `--idp`, whose login and accounts it uses): the authorization
 * endpoint with its consent page, the token and revocation endpoints, and their tokens as `Bearer` on every
 * route, limited by their scopes. Apps register through the Mastodon API (`POST /api/v1/apps`,
 * src/mastodon/) or, as remoteStorage apps do, are named by their origin. See docs/mastodon-api.md.
 */
import type { Hono } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import { AccountStore } from '../idp/accounts.ts';
import { Sessions } from '../idp/session.ts';
import { AppStore } from './apps.ts';
import { showAppConsent, startAuthorization, submitAppConsent } from './authorize.ts';
import type { OAuthContext } from './context.ts';
import { AUTHORIZE_PATH, CONSENT_PATH, REVOKE_PATH, TOKEN_PATH } from './paths.ts';
import { jsonErrors } from './json-errors.ts';
import { handleAppToken, handleRevoke } from './token.ts';
import { TokenStore } from './tokens.ts';
import { appTokenVerifier } from './verifier.ts';

function routes(oauth: OAuthContext): (app: Hono) => void {
  return (app) => {
    app.use('/oauth/*', jsonErrors);
    app.get(AUTHORIZE_PATH, (c) => startAuthorization(oauth, c.req.raw));
    app.post(AUTHORIZE_PATH, (c) => startAuthorization(oauth, c.req.raw));
    // Registered before the identity provider's routes, whose /idp/* ends in a 404.
    app.get(CONSENT_PATH, (c) => showAppConsent(oauth, c.req.raw));
    app.post(CONSENT_PATH, (c) => submitAppConsent(oauth, c.req.raw));
    app.post(TOKEN_PATH, (c) => handleAppToken(oauth, c.req.raw));
    app.post(REVOKE_PATH, (c) => handleRevoke(oauth, c.req.raw));
    // CORS preflights of browser apps; the CORS middleware adds the headers.
    app.options('/oauth/*', () => new Response(null, { status: 204 }));
  };
}

export const oauthCode: FeatureCode = {
  create(context) {
    const { platform, now } = context;
    const accounts = new AccountStore(platform.storage, now);
    const oauth: OAuthContext = {
      config: context.config,
      apps: new AppStore(platform.storage, now, context.log),
      tokens: new TokenStore(platform.storage, accounts, now, context.log),
      accounts,
      sessions: new Sessions(context.tokenKey, accounts, platform.storage, now),
      now,
      log: context.log,
    };
    context.authorizedApps.add(oauth.tokens.source());
    return { routes: routes(oauth), credentials: [appTokenVerifier(oauth.config, oauth.tokens)] };
  },
};
