/**
 * Issue 22's "done when", for each storage that several instances can share (test/e2e/scale-out.test.ts:
 * one data directory; scale-out-s3.test.ts: one S3 bucket): redis-server and three `svc start --redis-url`
 * processes on the same data, with requests spread across them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inbox } from '../notifications/support.ts';
import { startTestRedis, type TestRedis } from '../support/redis.ts';
import { runSvc, startSvc, type RunningSvc } from '../support/server.ts';

/** The data the instances share, as the tests see it from outside the servers. */
export interface SharedData {
  /** The `svc start` flags (and environment) that put an instance on it; also given to `svc quota`. */
  args: string[];
  env: Record<string, string>;
  /** Concurrent writes into a pod with a quota (default 1,000), 30% of which fit. */
  quotaWrites?: number;
  /** The text of a stored resource, null when there is none. */
  read(path: string): Promise<string | null>;
  close(): Promise<void>;
}

/** One running instance, as the tests use it. */
type Instance = Pick<RunningSvc, 'base' | 'output'> & { stop(): Promise<unknown> };

/**
 * Registers the scale-out tests on the data `open` makes (called in beforeAll); `name` says what it is.
 * `start` runs the i-th instance with the given flags (`svc start` on Node unless another runtime is given).
 */
export function describeScaleOut(name: string, open: () => Promise<SharedData>, start: (args: string[], env: Record<string, string>, index: number) => Promise<Instance> = (args, env) => startSvc(args, env)): void {
  let redis: TestRedis;
  let data: SharedData;
  const instances: Instance[] = [];
  let token: string;
  const inboxes: Inbox[] = [];

  /** The instance for the i-th request: requests go round the three. */
  const via = (i: number) => instances[i % instances.length]!.base;

  const authorized = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

  const createPod = (base: string, name: string) => fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });

  const quotaRecord = async () => JSON.parse((await data.read('/alice/.quota.json'))!) as { limit: number; used: number };
  const quota = (...args: string[]) => runSvc(['quota', ...args, ...data.args], data.env);

  beforeAll(async () => {
    redis = await startTestRedis();
    data = await open();
    // Pod creation is the rate limit checked across instances; the other limits would get in the load's way.
    const args = [...data.args, '--redis-url', redis.url, '--notifications', '-q', '--conneg', '--rate-limit', '--rate-limit-requests', '0', '--rate-limit-writes', '0', '--rate-limit-pods', '3'];
    for (let i = 0; i < 3; i++) instances.push(await start(args, data.env, i));
    const created = await createPod(via(0), 'alice');
    expect(created.status).toBe(201);
    token = ((await created.json()) as { token: string }).token;
  }, 60_000);

  afterAll(async () => {
    // What the instances logged (they run with -q), when it shows an error.
    for (const [i, instance] of instances.entries()) if (/internal error|Error/.test(instance.output())) console.error(`instance ${i}:\n${instance.output()}`);
    for (const inbox of inboxes) inbox.close();
    for (const instance of instances) await instance.stop();
    await redis?.stop();
    await data?.close();
  });

  describe(`three instances on ${name} with --redis-url`, () => {
    it('refuse exactly the writes past a pod’s quota, and leave used equal to what is stored', async () => {
      expect((await fetch(`${via(1)}/alice/q/seed.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'seed' })).status).toBe(201);
      const before = await quotaRecord();
      const size = 100;
      const writes = data.quotaWrites ?? 1000;
      const fitting = writes * 0.3;
      const set = await quota('set', 'alice', String(before.used + fitting * size));
      expect(set.code).toBe(0);

      const statuses = await Promise.all(
        Array.from({ length: writes }, async (_, i) => {
          const response = await fetch(`${via(i)}/alice/q/${i}.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'x'.repeat(size) });
          await response.body?.cancel();
          return response.status;
        }),
      );
      const counts = new Map<number, number>();
      for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
      expect(Object.fromEntries(counts)).toEqual({ 201: fitting, 507: writes - fitting });
      expect(await quotaRecord()).toEqual({ limit: before.used + fitting * size, used: before.used + fitting * size });
      // The server's own measure of the files agrees: nothing to reconcile.
      const reconcile = await quota('reconcile', 'alice');
      expect(reconcile.stdout).toContain(`was ${before.used + fitting * size} bytes, now ${before.used + fitting * size} bytes`);
      // Lifted again for the tests below.
      expect((await quota('set', 'alice', '0')).code).toBe(0);
      // Bounded generously: on a machine shared with other test runs the 1,000 writes take far longer.
    }, 180_000);

    it('apply 50 concurrent PATCHes sent to all instances, losing none', async () => {
      expect((await fetch(`${via(0)}/alice/p.ttl`, { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: '<#s> <#p> "start".' })).status).toBe(201);
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const body = `@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n_:patch a solid:InsertDeletePatch; solid:inserts { <#s> <#p> "value ${i}". }.`;
          const response = await fetch(`${via(i)}/alice/p.ttl`, { method: 'PATCH', headers: authorized({ 'content-type': 'text/n3' }), body });
          await response.body?.cancel();
          return response.status;
        }),
      );
      expect(new Set(statuses)).toEqual(new Set([204]));
      const turtle = await (await fetch(`${via(2)}/alice/p.ttl`, { headers: authorized({ accept: 'text/turtle' }) })).text();
      for (let i = 0; i < 50; i++) expect(turtle).toContain(`"value ${i}"`);
    }, 60_000);

    it('let exactly one of many create-only writes (If-None-Match: *) win, whichever instance they reach', async () => {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const response = await fetch(`${via(i)}/alice/once.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain', 'if-none-match': '*' }), body: `writer ${i}` });
          await response.body?.cancel();
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(29);
      expect(await data.read('/alice/once.txt')).toBe(`writer ${statuses.indexOf(201)}`);
    });

  it('let a subscriber on one instance hear writes made through each of the others', async () => {
      const [listening, ...writers] = instances;
      const inbox = new Inbox(listening!.base.replace(/^http/, 'ws') + '/.notifications', 'solid-0.1');
      inboxes.push(inbox);
      await inbox.opened;
      expect(await inbox.next()).toBe('protocol solid-0.1');
      for (const [i] of writers.entries()) {
        const topic = `${listening!.base}/alice/n/${i}.txt`;
        expect(await inbox.ask(`sub ${topic}`)).toBe(`ack ${topic}`);
      }
      for (const [i, writer] of writers.entries()) {
        expect((await fetch(`${writer.base}/alice/n/${i}.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'news' })).status).toBe(201);
        expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${listening!.base}/alice/n/${i}.txt`);
      }
    });

    it('let a WebSocketChannel2023 channel made through one instance connect on another and hear a write through the third', async () => {
      const [subscribedAt, connectedTo, writer] = instances;
      const topic = `${subscribedAt!.base}/alice/n/channel.txt`;
      const response = await fetch(`${subscribedAt!.base}/.notifications/WebSocketChannel2023/`, {
        method: 'POST',
        headers: authorized({ 'content-type': 'application/ld+json' }),
        body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'http://www.w3.org/ns/solid/notifications#WebSocketChannel2023', topic }),
      });
      expect(response.status).toBe(200);
      const { receiveFrom } = (await response.json()) as { receiveFrom: string };
      // As a balancer may send the socket elsewhere: same path and token, another instance.
      const inbox = new Inbox(connectedTo!.base.replace(/^http/, 'ws') + new URL(receiveFrom).pathname + new URL(receiveFrom).search);
      inboxes.push(inbox);
      await inbox.opened;
      expect((await fetch(`${writer!.base}/alice/n/channel.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'news' })).status).toBe(201);
      expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Create', object: topic });
    });

    it('apply an ACL change made through one instance at once on the others', async () => {
      const path = '/alice/shared/doc.txt';
      expect((await fetch(via(0) + path, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'hello' })).status).toBe(201);
      // Each instance has read (and cached) the ACL that keeps the public out.
      for (const instance of instances) expect((await fetch(instance.base + path)).status).toBe(401);
      const acl = (publicRead: boolean) => `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
  <#owner> a acl:Authorization; acl:agent </alice/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
  ${publicRead ? '<#public> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.' : ''}`;
      expect((await fetch(`${via(0)}/alice/shared/.acl`, { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: acl(true) })).status).toBe(201);
      for (const instance of instances) expect((await fetch(instance.base + path)).status).toBe(200);
      expect((await fetch(`${via(2)}/alice/shared/.acl`, { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: acl(false) })).status).toBe(204);
      for (const instance of instances) expect((await fetch(instance.base + path)).status).toBe(401);
    });

    it('fire a shared rate limit at the configured count across instances, and know every pod made', async () => {
      // alice was the first of the three pod creations allowed per address.
      expect((await createPod(via(1), 'bob')).status).toBe(201);
      const carol = await createPod(via(2), 'carol');
      expect(carol.status).toBe(201);
      const refused = await createPod(via(0), 'dave');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBeTruthy();

      // The instances started before carol's pod existed know it as a pod (a storage root) at once.
      const carolToken = ((await carol.json()) as { token: string }).token;
      for (const instance of instances) {
        const head = await fetch(`${instance.base}/carol/`, { method: 'HEAD', headers: { authorization: `Bearer ${carolToken}` } });
        expect(head.headers.get('link')).toContain('<http://www.w3.org/ns/pim/space#Storage>; rel="type"');
        expect((await fetch(`${instance.base}/carol/`, { method: 'DELETE', headers: { authorization: `Bearer ${carolToken}` } })).status).toBe(405);
      }
    });

    it('answer 503, never 500, while Redis is down, lose nothing, and resume once it is back', async () => {
      const statuses = new Map<string, number>();
      const write = async (i: number) => {
        const path = `/alice/outage/${i}.txt`;
        const response = await fetch(via(i) + path, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: `file ${i}` });
        await response.body?.cancel();
        statuses.set(path, response.status);
        return response.status;
      };
      expect((await fetch(`${via(0)}/alice/outage/read.txt`, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'kept' })).status).toBe(201);
      const load = Promise.all(Array.from({ length: 150 }, (_, i) => write(i)));
      await redis.stop();
      await load;
      for (let i = 150; i < 180; i++) expect(await write(i)).toBe(503);
      // Reads need no shared state: they go on (ACLs then re-read after at most 5 s, as with one instance).
      for (const instance of instances) expect((await fetch(`${instance.base}/alice/outage/read.txt`, { headers: authorized() })).status).toBe(200);
      await redis.start();
      // Each instance reconnects on its own; meanwhile it answers 503 with Retry-After, which a client retries.
      const served = async (send: () => Promise<number>) => {
        for (;;) {
          const status = await send();
          if (status !== 503) return status;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      // Writes 300 and up: path index k goes to instance k % 3.
      let attempt = 100;
      for (let i = 0; i < instances.length; i++) expect(await served(() => write(3 * attempt++ + i))).toBe(201);

      expect([...statuses.values()].filter((status) => ![201, 503].includes(status))).toEqual([]);
      for (const [path, status] of statuses) expect((await data.read(path)) !== null, `${path} answered ${status}`).toBe(status === 201);
      // The quota count started over from the files.
      const reconcile = await quota('reconcile', 'alice');
      const [, was, now] = /was (\d+) bytes, now (\d+) bytes/.exec(reconcile.stdout)!;
      expect(now).toBe(was);
    }, 60_000);
  });
}
