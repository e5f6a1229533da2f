/**
 * The token endpoints check everything (client, redirect_uri, PKCE, DPoP key) before they use up a code or a
 * refresh token: a request that fails a check burns nothing, so another client cannot spoil someone else's
 * login by presenting its code.
 */
import { describe, expect, it } from 'vitest';
import { basic, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import { authorize, dpopKey, form, idpApp, pkce, REDIRECT, registerClient, TOKEN_URL } from './support.ts';
import type { TestApp } from '../support/app.ts';

const PUBLIC_CLIENT = 'http://www.w3.org/ns/solid/terms#PublicOidcClient';

async function idpToken(app: TestApp, fields: Record<string, string>, key: Awaited<ReturnType<typeof dpopKey>>, authorization?: string): Promise<Response> {
  return app.request('/idp/token', form(fields, { dpop: await key.proof('POST', TOKEN_URL), ...(authorization && { authorization }) }));
}

async function expectInvalidGrant(response: Response, detail: string): Promise<void> {
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining(detail) });
}

describe('token endpoints use nothing up before every check passed', () => {
  it('/idp/token: a code presented by another client, with another redirect_uri or a wrong verifier stays its client\'s', async () => {
    const app = await idpApp();
    const client = await registerClient(app);
    const other = await registerClient(app, { client_name: 'Other App' });
    const key = await dpopKey();
    const { verifier, challenge } = await pkce();
    const code = (await authorize(app, client.client_id, challenge)).searchParams.get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };

    await expectInvalidGrant(await idpToken(app, exchange, key, basic(other.client_id, other.client_secret!)), 'another client');
    await expectInvalidGrant(await idpToken(app, { ...exchange, redirect_uri: 'https://app.example/other' }, key, basic(client.client_id, client.client_secret!)), 'redirect_uri');
    await expectInvalidGrant(await idpToken(app, { ...exchange, code_verifier: (await pkce()).verifier }, key, basic(client.client_id, client.client_secret!)), 'code_verifier');

    const own = await idpToken(app, exchange, key, basic(client.client_id, client.client_secret!));
    expect(own.status).toBe(200);
    await expectInvalidGrant(await idpToken(app, exchange, key, basic(client.client_id, client.client_secret!)), 'used already');
  });

  it('/idp/token: a refresh token presented by another client or with another DPoP key stays its client\'s', async () => {
    const app = await idpApp();
    const other = await registerClient(app, { client_name: 'Other App' });
    const key = await dpopKey();
    const { verifier, challenge } = await pkce();
    const code = (await authorize(app, PUBLIC_CLIENT, challenge, 'public client')).searchParams.get('code')!;
    const tokens = await (await idpToken(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: PUBLIC_CLIENT }, key)).json();
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token };

    await expectInvalidGrant(await idpToken(app, refresh, key, basic(other.client_id, other.client_secret!)), 'another client');
    await expectInvalidGrant(await idpToken(app, { ...refresh, client_id: PUBLIC_CLIENT }, await dpopKey()), 'DPoP key');

    const own = await idpToken(app, { ...refresh, client_id: PUBLIC_CLIENT }, key);
    expect(own.status).toBe(200);
  });

  it('/oauth/token: a code presented by another app, with another redirect_uri or a wrong verifier stays its app\'s', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const other = await registerApp(app, { client_name: 'Other App' });
    const { verifier, challenge } = await pkce();
    const code = await outOfBandCode(app, client, { code_challenge: challenge, code_challenge_method: 'S256' });
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: OOB, code_verifier: verifier };
    const auth = { authorization: basic(client.client_id, client.client_secret) };

    await expectInvalidGrant(await tokenRequest(app, exchange, { authorization: basic(other.client_id, other.client_secret) }), 'another app');
    await expectInvalidGrant(await tokenRequest(app, { ...exchange, redirect_uri: 'https://app.example/callback' }, auth), 'redirect_uri');
    await expectInvalidGrant(await tokenRequest(app, { ...exchange, code_verifier: (await pkce()).verifier }, auth), 'code_verifier');

    expect((await tokenRequest(app, exchange, auth)).status).toBe(200);
    await expectInvalidGrant(await tokenRequest(app, exchange, auth), 'used already');
  });
});
