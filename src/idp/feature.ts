/**
 * `--idp`: the built-in Solid-OIDC identity provider. Accounts (email and password) come with a pod;
 * apps log in through the authorization-code flow with PKCE, scripts with client credentials or
 * `POST /idp/credentials`. Its records live under /.server/idp/ in the resource storage, on every runtime.
 */
import type { Hono } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { podHostsOf } from '../pods/subdomains.ts';
import {
  changePassword,
  createCredentialForm,
  createCredentialJson,
  endSessionForm,
  listCredentialsJson,
  removePasskeyForm,
  revokeAppForm,
  revokeCredentialForm,
  revokeCredentialJson,
  showAccount,
  signOutEverywhere,
} from './account.ts';
import { AccountStore, checkCredentials } from './accounts.ts';
import { showAuthorization, submitConsent, submitLogin, submitLogout } from './authorize.ts';
import { idpBearerVerifier } from './bearer.ts';
import { ClientStore } from './clients.ts';
import { clientRules } from './first-party.ts';
import type { IdpContext } from './context.ts';
import { handleCredentials } from './credentials.ts';
import { discoveryDocument } from './discovery.ts';
import { DpopProofVerifier } from './dpop-proof.ts';
import { EndedTokens } from './ended-tokens.ts';
import { TokenFamilies } from './families.ts';
import { MemoryReplayCache } from '../auth/solid-oidc/replay-cache.ts';
import { SharedReplayCache } from '../auth/solid-oidc/shared-replay-cache.ts';
import { GrantStore } from './grants.ts';
import { PasskeyStore } from './passkey-store.ts';
import { login, loginOptions, register, registrationOptions } from './passkeys.ts';
import { checkIssuerOption, endpointOf, issuerFor, issuerNotice } from './issuer.ts';
import { loadOrCreateSigningKey, type SigningKey } from './keys.ts';
import {
  ACCOUNT_PATH,
  AUTH_PATH,
  CLIENT_CREDENTIALS_PATH,
  CLIENT_REGISTRATION_PATH,
  CONSENT_PATH,
  CREDENTIALS_PATH,
  DISCOVERY_PATH,
  JWKS_PATH,
  LOGOUT_PATH,
  PASSKEYS_PATH,
  NOSTR_LINK_PATH,
  NOSTR_LOGIN_PATH,
  REGISTER_PATH,
  SIGN_OUT_EVERYWHERE_PATH,
  TOKEN_PATH,
} from './paths.ts';
import { linkNostrKey, nostrDidDocument, nostrLogin, unlinkNostrKeyForm } from './nostr.ts';
import { NostrKeyStore } from './nostr-keys.ts';
import { showRegistration, submitRegistration } from './register.ts';
import { httpAuthCheck } from '../auth/nostr/verifier.ts';
import { OWN_DID_RESOLVER_PATH } from '../auth/nostr/did-link.ts';
import { Sessions } from './session.ts';
import { handleToken } from './token.ts';

const SOLID_OIDC_ISSUER = 'http://www.w3.org/ns/solid/terms#oidcIssuer';

function routes(idp: IdpContext): (app: Hono) => void {
  const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
  return (app) => {
    app.get(DISCOVERY_PATH, (c) => Response.json(discoveryDocument(issuerFor(idp.config, c.req.raw))));
    app.get(JWKS_PATH, async () => Response.json({ keys: [(await idp.signingKey()).publicJwk] }));
    app.post(CLIENT_REGISTRATION_PATH, async (c) => json(await idp.clients.register(await readJsonBody(c.req.raw, 16 * 1024, 'The client metadata'), new URL(c.req.url)), 201));
    app.get(AUTH_PATH, (c) => showAuthorization(idp, c.req.raw));
    app.post(AUTH_PATH, (c) => submitLogin(idp, c.req.raw));
    app.post(CONSENT_PATH, (c) => submitConsent(idp, c.req.raw));
    app.post(LOGOUT_PATH, (c) => submitLogout(idp, c.req.raw));
    app.post(TOKEN_PATH, (c) => handleToken(idp, c.req.raw));
    app.post(CREDENTIALS_PATH, (c) => handleCredentials(idp, c.req.raw));
    app.get(REGISTER_PATH, (c) => showRegistration(idp, c.req.raw));
    app.post(REGISTER_PATH, (c) => submitRegistration(idp, c.req.raw));
    app.get(ACCOUNT_PATH, (c) => showAccount(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/password`, (c) => changePassword(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/credentials`, (c) => createCredentialForm(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/credentials/revoke`, (c) => revokeCredentialForm(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/passkeys/remove`, (c) => removePasskeyForm(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/apps/revoke`, (c) => revokeAppForm(idp, c.req.raw));
    app.post(`${ACCOUNT_PATH}/sessions/end`, (c) => endSessionForm(idp, c.req.raw));
    app.post(SIGN_OUT_EVERYWHERE_PATH, (c) => signOutEverywhere(idp, c.req.raw));
    app.post(`${PASSKEYS_PATH}/registration-options`, (c) => registrationOptions(idp, c.req.raw));
    app.post(`${PASSKEYS_PATH}/registration`, (c) => register(idp, c.req.raw));
    app.post(`${PASSKEYS_PATH}/login-options`, (c) => loginOptions(idp, c.req.raw));
    app.post(`${PASSKEYS_PATH}/login`, (c) => login(idp, c.req.raw));
    app.post(CLIENT_CREDENTIALS_PATH, (c) => createCredentialJson(idp, c.req.raw));
    app.get(CLIENT_CREDENTIALS_PATH, (c) => listCredentialsJson(idp, c.req.raw));
    app.delete(`${CLIENT_CREDENTIALS_PATH}/:id`, (c) => revokeCredentialJson(idp, c.req.raw, c.req.param('id')));
    app.post(NOSTR_LOGIN_PATH, (c) => nostrLogin(idp, c.req.raw));
    app.post(NOSTR_LINK_PATH, (c) => linkNostrKey(idp, c.req.raw));
    app.post(`${NOSTR_LINK_PATH}/unlink`, (c) => unlinkNostrKeyForm(idp, c.req.raw));
    app.get(`${OWN_DID_RESOLVER_PATH}:file`, (c) => nostrDidDocument(idp, c.req.raw, c.req.param('file')));
    // CORS preflights of browser apps (token endpoint, registration); the CORS middleware adds the headers.
    app.options('/idp/*', () => new Response(null, { status: 204 }));
    app.all('/idp/*', (c) => {
      throw new HttpProblem(404, `The identity provider has no endpoint ${c.req.method} ${new URL(c.req.url).pathname}.`, { type: 'not-found' });
    });
  };
}

export const idpCode: FeatureCode = {
  create(context) {
    const { config, platform, now } = context;
    checkIssuerOption(config);
    let key: Promise<SigningKey> | null = null;
    const signingKey = () =>
      (key ??= loadOrCreateSigningKey(platform.storage).catch((error: unknown) => {
        key = null;
        throw error;
      }));
    const accounts = new AccountStore(platform.storage, now);
    const ended = new EndedTokens(platform.storage, now, context.log, platform.sharedState);
    const families = new TokenFamilies(platform.storage, ended, now, context.log);
    context.authorizedApps.add(families.source(async (accountId) => (await accounts.get(accountId))?.epoch ?? null));
    // DPoP tokens are verified by the resource server's verifier (src/auth/solid-oidc/); those signed with this
    // provider's key are ended here.
    context.issuedTokens.provide(async (token) => (token.kid === (await signingKey()).kid ? ended.endedBecause(token.claims) : null));
    const idp: IdpContext = {
      config,
      accounts,
      clients: new ClientStore(platform.storage, platform.fetch, now, context.log, clientRules(config), config.idpMaxClientCredentials),
      grants: new GrantStore(platform.storage, now, context.log),
      families,
      ended,
      apps: context.authorizedApps,
      passkeys: new PasskeyStore(platform.storage, now, config.idpMaxPasskeys),
      sessions: new Sessions(context.tokenKey, accounts, platform.storage, now),
      proofs: new DpopProofVerifier(platform.sharedState ? new SharedReplayCache(platform.sharedState, 'idp-dpop') : new MemoryReplayCache(), platform.signatureVerifier),
      nostrKeys: new NostrKeyStore(platform.storage, now, context.log, config.idpMaxNostrKeys),
      nostrCheck: httpAuthCheck({ now, maxBodyBytes: 16 * 1024, ...(platform.sharedState && { replays: new SharedReplayCache(platform.sharedState, 'idp-nip98') }) }),
      signingKey,
      createPod: context.createPod,
      authenticate: context.authenticate,
      now,
      log: context.log,
    };
    // Relative to the profile document, "/" is the server's origin: the issuer when none is fixed. In
    // subdomain mode that origin is the pod's host, so the profile names the base domain's.
    const hosts = podHostsOf(config);
    const issuerInProfile = (webId: string) => (config.idpIssuer ? new URL(config.idpIssuer).href : hosts ? hosts.mainOrigin(new URL(webId)) + '/' : '/');
    return {
      routes: routes(idp),
      credentials: [idpBearerVerifier(config, signingKey, ended, now)],
      podCreation: {
        async admit(fields, create) {
          const { email, password } = checkCredentials(fields.email, fields.password);
          const name = fields.name as string;
          const { undo } = await accounts.create(email, password, name, `/${name}/#me`);
          try {
            return await create();
          } catch (error) {
            await undo();
            throw error;
          }
        },
        profile: (webId) => ({ [SOLID_OIDC_ISSUER]: { '@id': issuerInProfile(webId) } }),
        async answer(pod, request) {
          const issuer = issuerFor(config, request);
          return { ...pod, idpIssuer: issuer, loginUrl: endpointOf(issuer, AUTH_PATH) };
        },
      },
      async init() {
        await signingKey();
        context.log(issuerNotice(config));
        if (config.singleUser) context.log('idp: the single-user pod gets its account at /idp/register, with the owner token printed at first start');
      },
    };
  },
};
