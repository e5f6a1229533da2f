/**
 * Ending tokens across instances that serve one storage: with a shared state (`--redis-url`) an end made
 * through one instance is refused by the others at once, though they verified the token before; without one
 * (Workers isolates without the Durable Object), within NOT_ENDED_MAX_AGE_MS.
 */
import { describe, expect, it } from 'vitest';
import { EndedTokens, NOT_ENDED_MAX_AGE_MS } from '../../src/idp/ended-tokens.ts';
import type { Platform } from '../../src/platform.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, makeApp, type TestApp } from '../support/app.ts';
import { useTestRedis } from '../support/redis.ts';
import { form, json, logIn, PASSWORD, solidAppLogin, type SolidAppLogin } from './support.ts';

const redis = useTestRedis();
const PRIVATE = '/alice/private/';

/** Two instances of --idp over one storage, alice's pod made through the first. */
async function twoInstances(platform: () => Promise<Partial<Platform>>): Promise<[TestApp, TestApp]> {
  const storage = new MemoryDriver();
  const first = makeApp({ idp: true }, storage, await platform());
  await first.app.init();
  const created = await first.request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
  expect(created.status).toBe(201);
  const second = makeApp({ idp: true }, storage, await platform());
  await second.app.init();
  return [first, second];
}

/** A read of alice's private container with the Solid app's token, through `instance`. */
async function readThrough(instance: TestApp, solid: SolidAppLogin, now = Date.now()): Promise<number> {
  const dpop = await solid.key.proof('GET', BASE + PRIVATE, { iat: Math.floor(now / 1000) });
  return (await instance.request(PRIVATE, { headers: { authorization: `DPoP ${solid.tokens.access_token}`, dpop } })).status;
}

async function signOutEverywhere(instance: TestApp): Promise<void> {
  const browser = await logIn(instance);
  expect((await instance.request('/idp/account/sign-out-everywhere', form({ csrf: browser.csrf }, { cookie: browser.cookies }))).status).toBe(200);
}

describe('ended tokens across instances', () => {
  it('with a shared state (--redis-url): refused at once by an instance that accepted the token before', async () => {
    const [first, second] = await twoInstances(async () => ({ sharedState: await redis.connect() }));
    const solid = await solidAppLogin(first);
    expect(await readThrough(second, solid)).toBe(200);
    expect(await readThrough(second, solid)).toBe(200);
    await signOutEverywhere(first);
    expect(await readThrough(second, solid)).toBe(401);
    expect(await readThrough(first, solid)).toBe(401);
  });

  it('without a shared state: refused by the other instance once what it believed is NOT_ENDED_MAX_AGE_MS old', async () => {
    let clock = Date.now();
    const [first, second] = await twoInstances(async () => ({ now: () => clock }));
    const solid = await solidAppLogin(first, () => clock);
    expect(await readThrough(second, solid, clock)).toBe(200);
    await signOutEverywhere(first);
    expect(await readThrough(first, solid, clock)).toBe(401);
    expect(await readThrough(second, solid, clock)).toBe(200);
    clock += NOT_ENDED_MAX_AGE_MS;
    expect(await readThrough(second, solid, clock)).toBe(401);
  });

  it('asks the storage once per id while nothing ends, and again after an end through another instance', async () => {
    const heads: string[] = [];
    const storage = new (class extends MemoryDriver {
      override head(path: string) {
        heads.push(path);
        return super.head(path);
      }
    })();
    const [one, two] = [await redis.connect(), await redis.connect()];
    const here = new EndedTokens(storage, Date.now, () => {}, one);
    const there = new EndedTokens(storage, Date.now, () => {}, two);
    for (let i = 0; i < 5; i++) expect(await here.firstEnded(['epoch-a', 'family-a'])).toBeUndefined();
    expect(heads).toHaveLength(2);
    await there.end(['family-a']);
    expect(await here.firstEnded(['epoch-a', 'family-a'])).toBe('family-a');
    expect(await here.firstEnded(['epoch-a', 'family-a'])).toBe('family-a');
    expect(heads).toHaveLength(4);
  });
});
