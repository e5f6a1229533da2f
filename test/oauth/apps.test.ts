import { describe, expect, it } from 'vitest';
import { UNCONFIRMED_APP_MS } from '../../src/oauth/apps.ts';
import { APPS } from '../../src/oauth/paths.ts';
import { idpApp } from '../idp/support.ts';
import { basic, OOB, outOfBandCode, registerApp, tokenRequest } from './support.ts';

describe('apps registered with POST /api/v1/apps (anyone may register)', () => {
  it('are forgotten a week after registration, or after their last app token, unless a user allowed them', async () => {
    let time = Date.now();
    const app = await idpApp({}, { now: () => time });
    const unused = await registerApp(app);
    const allowed = await registerApp(app);
    const appOnly = await registerApp(app);
    await outOfBandCode(app, allowed);
    const appToken = () => tokenRequest(app, { grant_type: 'client_credentials', scope: 'read' }, { authorization: basic(appOnly.client_id, appOnly.client_secret) });
    time += UNCONFIRMED_APP_MS - 60_000;
    expect((await appToken()).status).toBe(200);
    time += 2 * 60_000;

    const start = await app.request(`/oauth/authorize?${new URLSearchParams({ client_id: unused.client_id, redirect_uri: OOB, response_type: 'code', scope: 'read' })}`, { headers: { accept: 'text/html' } });
    expect(start.status).toBe(401);
    // The next registration sweeps the expired one away; the allowed app stays and still works.
    await registerApp(app);
    expect(await app.storage.head(`${APPS}${unused.client_id}.json`)).toBeNull();
    expect(await app.storage.head(`${APPS}${allowed.client_id}.json`)).not.toBeNull();
    expect(await outOfBandCode(app, allowed)).toEqual(expect.any(String));
    expect((await appToken()).status).toBe(200);
    time += UNCONFIRMED_APP_MS + 60_000;
    expect((await appToken()).status).toBe(401);
  });
});
