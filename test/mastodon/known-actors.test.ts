/**
 * The Mastodon API keeps what it learnt of remote actors under /.server/mastodon/actors/ (names, and the
 * account id back to the actor). That store is bounded (`--mastodon-known-actors`): past it, the actors
 * fetched longest ago are forgotten. Against a real svc whose owner has followers on other servers.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashName } from '../../src/activitypub/paths.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const ARGS = ['--idp', '--activitypub', '--single-user', '--single-user-name', '', '--ap-username', 'alice', '--allow-private-fetch', '--quiet'];
/** Nothing listens there: each actor's lookup fails at once, and its account is named from its URL. */
const remote = (name: string) => `http://127.0.0.1:9/users/${name}`;

describe('the Mastodon API\'s store of remote actors', () => {
  let root: string;
  let svc: RunningSvc | undefined;
  const actorsOnDisk = async () => (await readdir(join(root, '.server', 'mastodon', 'actors')).catch(() => [])).filter((name) => name.endsWith('.json')).sort();
  const followers = async () => {
    const response = await fetch(`${svc!.base}/api/v1/accounts/alice/followers`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { username: string }[]).map((account) => account.username).sort();
  };
  /** Writes follower records beside the pod while no server runs, then starts one with a bound of 3. */
  const restartWithFollowers = async (names: string[], since: string) => {
    await svc?.stop();
    await mkdir(join(root, '.server', 'activitypub', 'followers'), { recursive: true });
    for (const name of names) {
      const record = { id: remote(name), inbox: `${remote(name)}/inbox`, followId: `${remote(name)}/follows/1`, since };
      await writeFile(join(root, '.server', 'activitypub', 'followers', `${await hashName(remote(name))}.json`), JSON.stringify(record));
    }
    svc = await startSvc([...ARGS, '--mastodon-known-actors', '3'], {}, { root });
  };

  beforeAll(async () => {
    // The pod is made at the first start.
    const first = await startSvc(ARGS, {}, { root: await mkdtemp(join(tmpdir(), 'svc-actors-')) });
    root = first.root;
    await first.stop();
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps at most --mastodon-known-actors records, forgetting those fetched longest ago; accounts are still named from their URLs', async () => {
    await restartWithFollowers(['carol', 'dave', 'erin', 'frank'], '2026-01-01T00:00:00.000Z');
    expect(await followers()).toEqual(['carol', 'dave', 'erin', 'frank']);
    const firstKept = await actorsOnDisk();
    expect(firstKept).toHaveLength(3);

    // Two more followers: their lookups and those of the forgotten actor are newer than every record kept.
    await restartWithFollowers(['grace', 'heidi'], '2026-02-01T00:00:00.000Z');
    expect(await followers()).toEqual(['carol', 'dave', 'erin', 'frank', 'grace', 'heidi']);
    const kept = await actorsOnDisk();
    expect(kept).toHaveLength(3);
    expect(kept.filter((name) => firstKept.includes(name))).toEqual([]);
  }, 60_000);
});
