import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/idp/random.ts';
import { ACCESS_TOKENS, CODES, REFRESH_TOKENS } from '../../src/oauth/paths.ts';
import { AccountStore } from '../../src/idp/accounts.ts';
import { ACCOUNTS } from '../../src/idp/paths.ts';
import { TokenStore, type CodeGrant, type UserGrant } from '../../src/oauth/tokens.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { memberNames } from '../support/storage.ts';
import { idpApp } from '../idp/support.ts';
import { basic, registerApp, tokenRequest } from './support.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const GRANT: UserGrant = { clientId: 'app', accountId: 'alice', epoch: 'epoch-1', scopes: ['read'] };
const CODE: CodeGrant = { ...GRANT, redirectUri: 'urn:ietf:wg:oauth:2.0:oob' };

const hashes = (...tokens: string[]) => Promise.all(tokens.map(sha256)).then((found) => found.sort());

/** A token store on a clock the test moves, starting at the driver's clock (which stamps `modified`), with the account alice. */
async function tokenStore() {
  const storage = new MemoryDriver();
  let time = Date.now();
  const now = () => time;
  const logs: string[] = [];
  await storage.put(`${ACCOUNTS}alice.json`, JSON.stringify({ id: 'alice', email: 'alice@example.org', epoch: GRANT.epoch }), { contentType: 'application/json' });
  const tokens = new TokenStore(storage, new AccountStore(storage, now), now, (line) => logs.push(line));
  return { storage, logs, tokens, advance: (ms: number) => (time += ms) };
}

describe('TokenStore: expired tokens and codes are removed from storage', () => {
  it('sweeps access tokens a day after they were issued, refresh tokens after 90 days; revoked ones are gone at once', async () => {
    const { storage, tokens, advance } = await tokenStore();
    const revoked = await tokens.authorize(GRANT, 'App', true);
    await tokens.revoke(revoked.refreshToken!, 'app');
    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual([]);
    expect(await memberNames(storage, REFRESH_TOKENS)).toEqual([]);
    const first = await tokens.authorize(GRANT, 'App', true);
    const appToken = await tokens.appToken({ clientId: 'app', scopes: ['read'] });
    advance(DAY + MINUTE);
    const second = await tokens.authorize(GRANT, 'App', true);

    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual(await hashes(second.accessToken));
    expect(await memberNames(storage, REFRESH_TOKENS)).toEqual(await hashes(first.refreshToken!, second.refreshToken!));
    expect(await tokens.lookup(second.accessToken)).toMatchObject({ record: { grant: GRANT } });

    advance(90 * DAY);
    const third = await tokens.authorize(GRANT, 'App', true);
    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual(await hashes(third.accessToken));
    expect(await memberNames(storage, REFRESH_TOKENS)).toEqual(await hashes(third.refreshToken!));
    expect(await tokens.lookup(appToken.accessToken)).toBeNull();
  });

  it('sweeps a container at most once per interval while nothing is left over', async () => {
    const { storage, tokens, advance } = await tokenStore();
    await tokens.authorize(GRANT, 'App', false);
    const early = await tokens.authorize(GRANT, 'App', false);
    advance(DAY + MINUTE);
    const late = await tokens.authorize(GRANT, 'App', false);
    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual(await hashes(late.accessToken));

    advance(DAY - 5 * MINUTE);
    const next = await tokens.authorize(GRANT, 'App', false);
    advance(6 * MINUTE);
    // The last pass was 6 minutes ago: `late` has expired but stays until the next pass is due.
    const soon = await tokens.authorize(GRANT, 'App', false);
    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual(await hashes(late.accessToken, next.accessToken, soon.accessToken));
    advance(5 * MINUTE);
    const after = await tokens.authorize(GRANT, 'App', false);
    expect(await memberNames(storage, ACCESS_TOKENS)).toEqual(await hashes(next.accessToken, soon.accessToken, after.accessToken));
    expect(await tokens.lookup(early.accessToken)).toBeNull();
  });

  it('sweeps authorization codes that were never redeemed; a redeemed one is deleted at once', async () => {
    const { storage, tokens, advance } = await tokenStore();
    await tokens.codes.issue(CODE);
    const redeemed = await tokens.codes.issue(CODE);
    expect(await tokens.codes.redeem(redeemed)).toEqual(CODE);
    expect(await memberNames(storage, CODES)).toHaveLength(1);
    advance(10 * MINUTE + MINUTE);
    const live = await tokens.codes.issue(CODE);
    expect(await memberNames(storage, CODES)).toEqual(await hashes(live));
    expect(await tokens.codes.redeem(live)).toEqual(CODE);
  });

  it('leaves a malformed record alone and logs it once', async () => {
    const { storage, tokens, logs, advance } = await tokenStore();
    await storage.put(`${ACCESS_TOKENS}not-a-token`, 'garbage', { contentType: 'text/plain' });
    await tokens.authorize(GRANT, 'App', false);
    advance(DAY + MINUTE);
    const live = await tokens.authorize(GRANT, 'App', false);
    advance(DAY + MINUTE);
    await tokens.authorize(GRANT, 'App', false);
    expect(await memberNames(storage, ACCESS_TOKENS)).toHaveLength(2);
    expect(await memberNames(storage, ACCESS_TOKENS)).toContain('not-a-token');
    expect(await tokens.lookup(live.accessToken)).toBeNull();
    expect(logs).toEqual([`expired records: ${ACCESS_TOKENS}not-a-token is left alone: it is not a JSON object with a numeric "expires"`]);
  });
});

describe('OAuth token endpoint: expired app tokens leave the storage', () => {
  it('a token issued a day later sweeps the expired one away', async () => {
    let clock = Date.now();
    const app = await idpApp({}, { now: () => clock });
    const client = await registerApp(app);
    const token = async () => {
      const response = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'read' }, { authorization: basic(client.client_id, client.client_secret) });
      expect(response.status).toBe(200);
      return (await response.json()).access_token as string;
    };
    const first = await token();
    expect(await memberNames(app.storage, ACCESS_TOKENS)).toEqual(await hashes(first));
    clock += DAY + MINUTE;
    const second = await token();
    expect(await memberNames(app.storage, ACCESS_TOKENS)).toEqual(await hashes(second));
    expect((await app.request('/api/v1/apps/verify_credentials', { headers: { authorization: `Bearer ${second}` } })).status).toBe(200);
  });
});
