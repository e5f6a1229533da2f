/**
 * An authorization code presented a second time means two parties hold it: the code is refused, and the
 * tokens issued from its first use are revoked too (RFC 6749 §4.1.2, RFC 9700 §4.2.4). Against a real svc,
 * on both token endpoints: the identity provider's (/idp/token) and third-party apps' (/oauth/token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { basic, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import { authorize, dpopKey, form, json, PASSWORD, pkce, REDIRECT, registerClient } from './support.ts';

const PRIVATE = '/alice/private/';

describe('a re-used authorization code revokes the tokens issued from it', () => {
  let svc: RunningSvc;
  const server = () => ({ request: (path: string, init: RequestInit = {}) => fetch(svc.base + path, { ...init, redirect: 'manual' }) });

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await server().request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
  });

  it('/idp/token: the second exchange is refused, and the access and refresh tokens of the first stop working', async () => {
    const client = await registerClient(server());
    const untouched = await registerClient(server(), { client_name: 'Other App' });
    const key = await dpopKey();
    const token = async (clientOf: { client_id: string; client_secret?: string }, fields: Record<string, string>) =>
      server().request('/idp/token', form(fields, { authorization: basic(clientOf.client_id, clientOf.client_secret!), dpop: await key.proof('POST', `${svc.base}/idp/token`) }));
    const get = async (accessToken: string) => server().request(PRIVATE, { headers: { authorization: `DPoP ${accessToken}`, dpop: await key.proof('GET', svc.base + PRIVATE) } });
    const login = async (clientOf: { client_id: string; client_secret?: string }) => {
      const { verifier, challenge } = await pkce();
      const code = (await authorize(server(), clientOf.client_id, challenge, clientOf === client ? 'Test App' : 'Other App')).searchParams.get('code')!;
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const answer = await token(clientOf, exchange);
      expect(answer.status).toBe(200);
      return { exchange, tokens: (await answer.json()) as { access_token: string; refresh_token: string } };
    };

    const first = await login(client);
    const other = await login(untouched);
    expect((await get(first.tokens.access_token)).status).toBe(200);

    const reused = await token(client, first.exchange);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('used already') });

    const read = await get(first.tokens.access_token);
    expect(read.status).toBe(401);
    expect(read.headers.get('www-authenticate')).toContain('its app was logged out');
    const refreshed = await token(client, { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token });
    expect(refreshed.status).toBe(400);
    expect((await refreshed.json()).error).toBe('invalid_grant');

    // Another login of the same account keeps working.
    expect((await get(other.tokens.access_token)).status).toBe(200);
    expect((await token(untouched, { grant_type: 'refresh_token', refresh_token: other.tokens.refresh_token })).status).toBe(200);
  });

  it('/idp/token: a second exchange that fails the checks (another client) revokes nothing', async () => {
    const client = await registerClient(server());
    const stranger = await registerClient(server(), { client_name: 'Stranger' });
    const key = await dpopKey();
    const { verifier, challenge } = await pkce();
    const code = (await authorize(server(), client.client_id, challenge)).searchParams.get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const token = async (clientOf: { client_id: string; client_secret?: string }) =>
      server().request('/idp/token', form(exchange, { authorization: basic(clientOf.client_id, clientOf.client_secret!), dpop: await key.proof('POST', `${svc.base}/idp/token`) }));
    const tokens = await (await token(client)).json();

    expect((await token(stranger)).status).toBe(400);
    const read = await server().request(PRIVATE, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await key.proof('GET', svc.base + PRIVATE) } });
    expect(read.status).toBe(200);
  });

  it('/oauth/token: the second exchange is refused, and the access and refresh tokens of the first stop working', async () => {
    const app = await registerApp(server());
    const auth = { authorization: basic(app.client_id, app.client_secret) };
    const code = await outOfBandCode(server(), app);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: OOB };
    const first = await tokenRequest(server(), exchange, auth);
    expect(first.status).toBe(200);
    const tokens = await first.json();
    const kept = await (await tokenRequest(server(), { grant_type: 'authorization_code', code: await outOfBandCode(server(), app), redirect_uri: OOB }, auth)).json();
    expect((await server().request(PRIVATE, bearer(tokens.access_token))).status).toBe(200);

    const reused = await tokenRequest(server(), exchange, auth);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('used already') });

    expect((await server().request(PRIVATE, bearer(tokens.access_token))).status).toBe(401);
    expect((await tokenRequest(server(), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth)).status).toBe(400);
    expect((await server().request(PRIVATE, bearer(kept.access_token))).status).toBe(200);
  });

  /**
   * At least one answer is invalid_grant, and no token either answer carries works. The code's first user may
   * be refused too: the reuse revokes its login while it is still being answered (its refresh token is gone).
   */
  async function expectNoLiveTokens(answers: Response[], works: (accessToken: string) => Promise<boolean>) {
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(answers.map((answer) => answer.status).filter((status) => status === 400).length).toBeGreaterThanOrEqual(1);
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 400) expect(bodies[index]).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/used already|logged out while this request was answered/) });
      else expect(answer.status).toBe(200);
    }
    for (const body of bodies.filter((body) => body.access_token)) expect(await works(body.access_token)).toBe(false);
  }

  it('/oauth/token: of two concurrent exchanges one is refused with invalid_grant, and no token of the code stays usable', async () => {
    const app = await registerApp(server());
    const auth = { authorization: basic(app.client_id, app.client_secret) };
    const exchange = { grant_type: 'authorization_code', code: await outOfBandCode(server(), app), redirect_uri: OOB };
    const answers = await Promise.all([tokenRequest(server(), exchange, auth), tokenRequest(server(), exchange, auth)]);
    await expectNoLiveTokens(answers, async (accessToken) => (await server().request(PRIVATE, bearer(accessToken))).status === 200);
  });

  it('/idp/token: of two concurrent exchanges one is refused with invalid_grant, and no token of the code stays usable', async () => {
    const client = await registerClient(server());
    const key = await dpopKey();
    const { verifier, challenge } = await pkce();
    const code = (await authorize(server(), client.client_id, challenge)).searchParams.get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const token = async () => server().request('/idp/token', form(exchange, { authorization: basic(client.client_id, client.client_secret!), dpop: await key.proof('POST', `${svc.base}/idp/token`) }));
    const answers = await Promise.all([token(), token()]);
    await expectNoLiveTokens(answers, async (accessToken) => {
      const read = await server().request(PRIVATE, { headers: { authorization: `DPoP ${accessToken}`, dpop: await key.proof('GET', svc.base + PRIVATE) } });
      return read.status === 200;
    });
  });
});
