/**
 * Refresh tokens rotate, and a rotated-out one presented again ends its whole family (OAuth 2.0 Security BCP,
 * RFC 9700 §4.14.2): the thief's and the app's tokens alike, so a stolen refresh token is caught at the next
 * refresh of either party. A family also ends a fixed time after its login, however often it is refreshed.
 */
import { describe, expect, it } from 'vitest';
import { basic, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import { idpApp, solidAppLogin } from './support.ts';

const PRIVATE = '/alice/private/';
const DAY = 24 * 3600 * 1000;

describe('refresh token families', () => {
  it('the identity provider: re-using a rotated refresh token ends the family, access tokens included; other logins stay', async () => {
    const app = await idpApp();
    const solid = await solidAppLogin(app);
    const untouched = await solidAppLogin(app);
    const rotated = await solid.token({ grant_type: 'refresh_token', refresh_token: solid.tokens.refresh_token });
    expect(rotated.status).toBe(200);
    const next = await rotated.json();
    expect((await solid.get(PRIVATE, next.access_token)).status).toBe(200);

    const reused = await solid.token({ grant_type: 'refresh_token', refresh_token: solid.tokens.refresh_token });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('used before') });

    const afterReuse = await solid.token({ grant_type: 'refresh_token', refresh_token: next.refresh_token });
    expect(afterReuse.status).toBe(400);
    expect((await afterReuse.json()).error).toBe('invalid_grant');
    for (const token of [next.access_token, solid.tokens.access_token]) {
      const read = await solid.get(PRIVATE, token);
      expect(read.status).toBe(401);
      expect(read.headers.get('www-authenticate')).toContain('its app was logged out');
    }
    expect((await untouched.get(PRIVATE)).status).toBe(200);
    expect((await untouched.token({ grant_type: 'refresh_token', refresh_token: untouched.tokens.refresh_token })).status).toBe(200);
  });

  it('OAuth apps: re-using a rotated refresh token ends the family', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const first = await (await tokenRequest(app, { grant_type: 'authorization_code', code: await outOfBandCode(app, client), redirect_uri: OOB }, auth)).json();
    const next = await (await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, auth)).json();
    expect((await app.request(PRIVATE, bearer(next.access_token))).status).toBe(200);

    const reused = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, auth);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('used before') });
    expect((await app.request(PRIVATE, bearer(next.access_token))).status).toBe(401);
    expect((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: next.refresh_token }, auth)).status).toBe(400);
  });

  it('the identity provider: a family ends 30 days after its login, however often it was refreshed', async () => {
    let clock = Date.now();
    const app = await idpApp({}, { now: () => clock });
    const solid = await solidAppLogin(app, () => clock);
    let refresh = solid.tokens.refresh_token;
    for (let week = 1; week <= 4; week++) {
      clock += 7 * DAY;
      const answer = await solid.token({ grant_type: 'refresh_token', refresh_token: refresh });
      expect(answer.status, `refresh after ${week} weeks`).toBe(200);
      refresh = (await answer.json()).refresh_token;
    }
    clock += 2 * DAY;
    const expired = await solid.token({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
  });
});
