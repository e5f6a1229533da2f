/**
 * `svc start --storage s3` as a process against a real S3-protocol server (s3rver, test/support/s3.ts):
 * what stops it at startup, what it answers while the endpoint is away, and the crash-recount rule.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePodUsage, readQuotaRecord } from '../../src/quota/record.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/local-process.ts';
import { startTestRedis } from '../support/redis.ts';
import { startS3Proxy } from '../support/s3-proxy.ts';
import { startTestS3, type TestS3 } from '../support/s3.ts';
import { runSvc, startSvc } from '../support/server.ts';

let s3: TestS3;

beforeAll(async () => {
  s3 = await startTestS3();
});

afterAll(async () => {
  await s3?.stop();
});

const start = (args: string[], env: Record<string, string> = s3.env) => runSvc(['start', '-p', '0', '-h', '127.0.0.1', ...args], env);

const createPod = async (base: string, name: string) => {
  const response = await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
};

describe('svc start --storage s3', () => {
  it('stops with one line, and exit code 1, for a missing bucket, refused credentials or an endpoint that does not answer', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [s3.args('', 'missing-bucket'), s3.env, /^svc: --storage s3: there is no bucket "missing-bucket" at http:\/\/127\.0\.0\.1:\d+\/ \(404 NoSuchBucket.*create the bucket/],
      [s3.args(), { AWS_ACCESS_KEY_ID: 'WRONG-KEY-ID', AWS_SECRET_ACCESS_KEY: 'wrong secret' }, /^svc: --storage s3: bucket "pods" at .* refused the credentials \(403 InvalidAccessKeyId.*AWS_SECRET_ACCESS_KEY/],
      [['--storage', 's3', '--s3-endpoint', `http://127.0.0.1:${await freePort()}`, '--s3-bucket', 'pods', '--s3-force-path-style'], s3.env, /^svc: --storage s3: cannot reach bucket "pods" at .*ECONNREFUSED/],
      [['--storage', 's3', '--s3-bucket', 'pods'], {}, /^svc: --storage s3 needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/],
    ];
    for (const [args, env, message] of cases) {
      const result = await start(args, env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/wrong secret|S3RVER/);
    }
  });

  it('refuses a second instance on the bucket without --redis-url, as the endpoint has no conditional writes', async () => {
    const first = await startSvc(s3.args('alone/'), s3.env);
    try {
      expect(first.output()).toContain('notice: the S3 endpoint does not honour conditional writes');
      const second = await start(s3.args('alone/'));
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/^svc: --storage s3: another svc instance \(node pid \d+ on .*, seen \d+ s ago\) serves bucket "pods".*give every instance the same --redis-url/);
      // Another prefix is another store.
      const beside = await startSvc(s3.args('beside/'), s3.env);
      await beside.stop();
    } finally {
      await first.stop();
    }
    // Stopped cleanly, it left no lease: the next start is not refused.
    const next = await startSvc(s3.args('alone/'), s3.env);
    await next.stop();
  });

  it('answers 503 with Retry-After, never 500, while the endpoint is away, and serves again once it is back', async () => {
    const svc = await startSvc([...s3.args('outage/'), '-q'], s3.env);
    try {
      const token = await createPod(svc.base, 'alice');
      const authorized = { authorization: `Bearer ${token}`, 'content-type': 'text/plain' };
      expect((await fetch(`${svc.base}/alice/kept.txt`, { method: 'PUT', headers: authorized, body: 'kept' })).status).toBe(201);
      await s3.pause();
      const statuses: number[] = [];
      try {
        for (let i = 0; i < 20; i++) {
          const write = await fetch(`${svc.base}/alice/new/${i}.txt`, { method: 'PUT', headers: authorized, body: `new ${i}` });
          const read = await fetch(`${svc.base}/alice/kept.txt`, { headers: authorized });
          const listing = await fetch(`${svc.base}/alice/`, { headers: authorized });
          for (const response of [write, read, listing]) {
            statuses.push(response.status);
            expect(response.headers.get('retry-after')).toBe('5');
            expect(response.headers.get('content-type')).toBe('application/problem+json');
            await response.body?.cancel();
          }
        }
      } finally {
        await s3.resume();
      }
      expect(new Set(statuses)).toEqual(new Set([503]));
      expect(await (await fetch(`${svc.base}/alice/kept.txt`, { headers: authorized })).text()).toBe('kept');
      expect((await fetch(`${svc.base}/alice/new/0.txt`, { method: 'PUT', headers: authorized, body: 'new 0' })).status).toBe(201);
      expect(svc.output()).not.toContain('internal error');
    } finally {
      await svc.stop();
    }
  });

  it('recounts the quota records at the next start after it was killed, and that start is not refused', async () => {
    const svc = await startSvc(s3.args('crash/'), s3.env);
    const token = await createPod(svc.base, 'alice');
    const authorized = { authorization: `Bearer ${token}`, 'content-type': 'text/plain' };
    const record = async () => JSON.parse(await new Response((await (await s3.driver('crash/')).get('/alice/.quota.json'))!.body).text()) as { used: number };
    const before = await record();
    for (let i = 0; i < 5; i++) expect((await fetch(`${svc.base}/alice/${i}.txt`, { method: 'PUT', headers: authorized, body: 'x'.repeat(1000) })).status).toBe(201);
    // Killed before the counts' next checkpoint (at most a second after a write): the record is behind.
    svc.process.kill('SIGKILL');
    await new Promise((resolve) => svc.process.once('exit', resolve));
    expect((await record()).used).toBeLessThan(before.used + 5000);

    // Started at once on the same host: the dead process's lease is known to be gone.
    const restarted = await startSvc(s3.args('crash/'), s3.env);
    try {
      expect(restarted.output()).not.toContain('another svc instance');
      expect((await record()).used).toBe(before.used + 5000);
    } finally {
      await restarted.stop();
    }
  });

  for (const shared of [false, true]) {
    it(`counts a write whose answer was lost (503: it may have landed) by measuring the pod again${shared ? ', with quotas counted in Redis' : ''}; --s3-timeout bounds the wait`, async () => {
      const proxy = await startS3Proxy(s3.endpoint);
      const redis = shared ? await startTestRedis() : null;
      const prefix = shared ? 'lost-shared/' : 'lost/';
      const args = ['--storage', 's3', '--s3-endpoint', proxy.endpoint, '--s3-bucket', s3.bucket, '--s3-force-path-style', '--s3-prefix', prefix, '--s3-timeout', '1s'];
      const svc = await startSvc([...args, ...(redis ? ['--redis-url', redis.url] : [])], s3.env);
      try {
        const token = await createPod(svc.base, 'alice');
        const put = (name: string, size: number) => fetch(`${svc.base}/alice/${name}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'x'.repeat(size) });
        expect((await put('before.txt', 100)).status).toBe(201);

        // The S3 server stores each of these; svc hears nothing back (a connection cut, or no answer in time).
        proxy.lose('PUT', /\/alice\/dropped\.txt$/, 'drop');
        expect((await put('dropped.txt', 5000)).status).toBe(503);
        proxy.lose('PUT', /\/alice\/held\.txt$/, 'hold');
        expect((await put('held.txt', 7000)).status).toBe(503);
        expect(svc.output()).toContain('no answer within 1 s');
        expect(svc.output()).toContain('quota: /alice/ will be measured again');
        proxy.passAll();
        // svc may give up on a write before the S3 server has finished it: the next use must come after.
        const driver = await s3.driver(prefix);
        for (const [name, size] of [['dropped.txt', 5000], ['held.txt', 7000]] as const) {
          await eventually(async () => ((await driver.head(`/alice/${name}`))?.size === size ? true : undefined), `${name} to land`);
        }

        expect((await put('after.txt', 100)).status).toBe(201);
      } finally {
        await svc.stop();
        await proxy.close();
        await redis?.stop();
      }
      const driver = await s3.driver(prefix);
      expect((await readQuotaRecord(driver, '/alice/'))!.record.used).toBe(await measurePodUsage(driver, '/alice/'));
    });
  }

  it('moves a pod from fs to S3 and back with svc copy, which the server then serves with the same token', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'svc-copy-'));
    try {
      const first = join(scratch, 'first');
      const svc = await startSvc(['-r', first, '--conneg']);
      const token = await createPod(svc.base, 'alice');
      const owner = { authorization: `Bearer ${token}` };
      const writes: [string, string, string][] = [
        ['/alice/notes/plain', 'no extension', 'text/plain'],
        ['/alice/notes/data.ttl', '<#a> <#b> "c".', 'text/turtle'],
        ['/alice/photos/2024/cat & dog.bin', 'bytes', 'application/octet-stream'],
      ];
      for (const [path, body, type] of writes) expect((await fetch(svc.base + encodeURI(path), { method: 'PUT', headers: { ...owner, 'content-type': type }, body })).status).toBe(201);
      expect((await fetch(`${svc.base}/alice/empty/`, { method: 'PUT', headers: owner })).status).toBe(201);
      await svc.stop();

      const onS3 = join(scratch, 's3.json');
      await writeFile(onS3, JSON.stringify({ storage: 's3', s3Endpoint: s3.endpoint, s3Bucket: s3.bucket, s3Prefix: 'moved/', s3ForcePathStyle: true }));
      const there = await runSvc(['copy', '-r', first, '--to', onS3], s3.env);
      expect(there.stderr).toBe('');
      expect(there.stdout).toMatch(/^copied \d+ resources \(\d+ bytes\) and 1 empty containers from files under .* to S3 bucket pods under moved\/ at http:\/\/127\.0\.0\.1:\d+/);
      // Never into a store that holds data.
      const again = await runSvc(['copy', '-r', first, '--to', onS3], s3.env);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/is not empty/);

      const served = await startSvc(['-c', onS3, '--conneg'], s3.env);
      try {
        for (const [path, body, type] of writes) {
          const response = await fetch(served.base + encodeURI(path), { headers: owner });
          expect(response.status).toBe(200);
          expect(response.headers.get('content-type')).toBe(type);
          expect(await response.text()).toBe(body);
        }
        expect((await fetch(`${served.base}/alice/empty/`, { headers: owner })).status).toBe(200);
        expect((await fetch(`${served.base}/alice/notes/plain`)).status).toBe(401);
      } finally {
        await served.stop();
      }

      const back = join(scratch, 'back');
      const onFs = join(scratch, 'fs.json');
      await writeFile(onFs, JSON.stringify({ root: back }));
      expect((await runSvc(['copy', '-c', onS3, '--to', onFs], s3.env)).code).toBe(0);
      const files = async (root: string) => (await readdir(root, { recursive: true })).filter((name) => !name.startsWith('.svc-tmp')).sort();
      expect(await files(back)).toEqual(await files(first));
      for (const name of await files(first)) {
        if ((await readFile(join(first, name)).catch(() => null)) === null) continue;
        expect(await readFile(join(back, name)), name).toEqual(await readFile(join(first, name)));
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
