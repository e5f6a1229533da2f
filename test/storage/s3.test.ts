import { AwsClient } from 'aws4fetch';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Bucket } from '../../storage-drivers/s3-bucket.ts';
import { S3Driver } from '../../storage-drivers/s3.ts';
import { freePort } from '../support/local-process.ts';
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from '../support/s3.ts';
import { runStorageContract } from './contract.ts';
import { runObjectStoreSpecifics } from './object-store.ts';

/*
 * The S3 driver against a real S3-protocol server (s3rver, test/support/s3-server.ts), which has no
 * conditional writes: the driver finds that out at open and makes create-only and compare-and-swap atomic
 * within its process. Every driver the contract asks for gets a fresh key prefix in one bucket.
 */
let s3: TestS3;
let counter = 0;

beforeAll(async () => {
  s3 = await startTestS3('pods', ['short-lived']);
});

afterAll(async () => {
  await s3?.stop();
});

const freshDriver = (options: Parameters<TestS3['driver']>[1] = {}) => s3.driver(`t${++counter}/`, options);

/** The bucket as any S3 tool sees it. */
const rawBucket = () => new S3Bucket({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', forcePathStyle: true }, S3RVER_CREDENTIALS);

/** A signed request to the test server, as another S3 client makes it. */
const rawSigned = (method: string, url: string) => new AwsClient({ ...S3RVER_CREDENTIALS, service: 's3', region: 'us-east-1' }).sign(url, { method });

/** Every key of the bucket under a prefix, as any S3 tool lists them. */
async function keysUnder(prefix: string): Promise<string[]> {
  const bucket = rawBucket();
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor && { cursor }) });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

runStorageContract('s3', () => freshDriver());
// s3rver repeats a common prefix on the next page of a listing, which the paging test meets.
runObjectStoreSpecifics('s3', {
  driver: (options = {}) => freshDriver(options),
  prefix: () => `t${counter}/`,
  putForeign: async (key, body, contentType) => void (await rawBucket().put(key, body, { httpMetadata: { contentType } })),
  keys: keysUnder,
});

describe('s3 driver specifics', () => {
  it('finds that s3rver ignores conditional writes, so it is atomic only within its process', async () => {
    const driver = await freshDriver();
    expect(driver.features.conditionalWrites).toBe(false);
    expect(driver.capabilities.crossProcessAtomic).toBe(false);
  });

  it('refuses a path whose key S3 would refuse as too long, and finds nothing there', async () => {
    const driver = await freshDriver();
    const path = '/' + Array.from({ length: 5 }, () => 'n'.repeat(230)).join('/');
    await expect(driver.put(path, 'x', { contentType: 'text/plain' })).rejects.toThrow(/longer than this storage allows/);
    expect(await driver.head(path)).toBeNull();
  });

  it('keeps a lease while a server runs it, and reports an unclean stop when one is left behind', async () => {
    const prefix = `lease${++counter}/`;
    const clean = await s3.driver(prefix, { recover: true });
    expect(clean.uncleanStop).toBe(false);
    expect(clean.recountsAfterUncleanStop).toBe(true);
    expect((await keysUnder(prefix)).filter((key) => key.includes('.svc-tmp-instance-'))).toHaveLength(1);
    // Listings and usage never show it.
    const rootNames: string[] = [];
    for await (const meta of clean.list('/')) rootNames.push(meta.path);
    expect(rootNames).toEqual([]);
    await clean.close();
    expect(await keysUnder(prefix)).toEqual([]);
    expect((await s3.driver(prefix, { recover: true }).then(async (next) => (await next.close(), next))).uncleanStop).toBe(false);
  });

  it('refuses to start beside a running instance when neither conditional writes nor --redis-url make them safe', async () => {
    const prefix = `two${++counter}/`;
    const running = await s3.driver(prefix, { recover: true, instance: { host: 'host-a', pid: 1, runtime: 'node' } });
    await expect(s3.driver(prefix, { recover: true })).rejects.toThrow(/another svc instance \(node pid 1 on host-a, seen \d+ s ago\).*--redis-url/);
    // With shared locks it may join, and it does not take the running one for a crashed one.
    const joined = await s3.driver(prefix, { recover: true, shared: true });
    expect(joined.uncleanStop).toBe(false);
    expect(joined.recountsAfterUncleanStop).toBe(false);
    await joined.close();
    // Where the runtime knows that process is gone (it died on this host), its lease is an unclean stop at once.
    const restarted = await s3.driver(prefix, { recover: true, isGone: (other) => other.host === 'host-a' && other.pid === 1 });
    expect(restarted.uncleanStop).toBe(true);
    await restarted.close();
    await running.close();
  });

  it('leaves the recount to the next start alone when an instance sharing Redis finds a lease left behind', async () => {
    const prefix = `shared${++counter}/`;
    // What a killed instance leaves: its lease.
    await rawBucket().put(`${prefix}.svc-tmp-instance-killed`, JSON.stringify({ instance: { host: 'host-b', pid: 2, runtime: 'node' } }), {});
    const gone = (other: { host: string }) => other.host === 'host-b';
    const joined = await s3.driver(prefix, { recover: true, shared: true, isGone: gone });
    expect(joined.uncleanStop).toBe(false);
    await joined.close();
    // Only the marker is left of it, and a start without Redis recounts once.
    expect((await keysUnder(prefix)).map((key) => key.slice(prefix.length))).toEqual(['.svc-tmp-unclean']);
    const alone = await s3.driver(prefix, { recover: true });
    expect(alone.uncleanStop).toBe(true);
    await alone.close();
    expect((await s3.driver(prefix, { recover: true }).then(async (next) => (await next.close(), next))).uncleanStop).toBe(false);
  });

  it('cuts the range out itself where an endpoint ignores Range and sends the whole object', async () => {
    // An endpoint (a plain HTTP server here) that answers every GET with the whole body, as some gateways do.
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain', etag: '"e"' }).end('0123456789'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const bucket = new S3Bucket({ endpoint: `http://127.0.0.1:${port}`, bucket: 'b', region: 'us-east-1', forcePathStyle: true }, S3RVER_CREDENTIALS);
      expect(await new Response((await bucket.get('k', { range: { offset: 3, length: 4 } }))!.body).text()).toBe('3456');
      expect(await new Response((await bucket.get('k', { range: { offset: 8 } }))!.body).text()).toBe('89');
    } finally {
      server.close();
    }
  });

  it('takes a bucket that went away while it runs for an outage, not for missing resources', async () => {
    const driver = await S3Driver.open({ location: { endpoint: s3.endpoint, bucket: 'short-lived', region: 'us-east-1', forcePathStyle: true }, credentials: S3RVER_CREDENTIALS });
    await driver.put('/kept', 'x', { contentType: 'text/plain' });
    await driver.delete('/kept');
    const deleted = await fetch(await rawSigned('DELETE', `${s3.endpoint}/short-lived`));
    expect(deleted.status).toBe(204);
    await expect(driver.get('/kept')).rejects.toThrow(/there is no bucket "short-lived" .* any more/);
    await expect(driver.put('/new', 'x', { contentType: 'text/plain' })).rejects.toSatisfy((e: Error & { code?: string }) => e.code === 'Unavailable');
  });

  it('stops with one clear line for a missing bucket, refused credentials, or an endpoint that does not answer', async () => {
    const location = { endpoint: s3.endpoint, bucket: 'no-such-bucket', region: 'us-east-1', forcePathStyle: true };
    await expect(S3Driver.open({ location, credentials: S3RVER_CREDENTIALS })).rejects.toThrow(/^there is no bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ \(404 NoSuchBucket.*create the bucket/);
    // s3rver checks the key id, not SigV4 signatures.
    const wrong = { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'not the secret' };
    const refused = S3Driver.open({ location: { ...location, bucket: s3.bucket }, credentials: wrong });
    await expect(refused).rejects.toThrow(/refused the credentials \(403 InvalidAccessKeyId.*check AWS_ACCESS_KEY_ID/);
    await expect(refused).rejects.not.toThrow(/NOT-A-KEY|not the secret/);
    const nobody = { ...location, endpoint: `http://127.0.0.1:${await freePort()}` };
    await expect(S3Driver.open({ location: nobody, credentials: S3RVER_CREDENTIALS })).rejects.toThrow(/^cannot reach bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: fetch failed \(.*ECONNREFUSED/);
  });

  it('answers Unavailable while the endpoint is away, and works again once it is back', async () => {
    const driver = await freshDriver();
    await driver.put('/o/kept', 'kept', { contentType: 'text/plain' });
    await s3.pause();
    try {
      await expect(driver.head('/o/kept')).rejects.toSatisfy((e: Error & { code?: string }) => e.code === 'Unavailable');
      await expect(driver.put('/o/new', 'x', { contentType: 'text/plain' })).rejects.toSatisfy((e: Error & { code?: string }) => e.code === 'Unavailable');
    } finally {
      await s3.resume();
    }
    expect(await new Response((await driver.get('/o/kept'))!.body).text()).toBe('kept');
    expect((await driver.put('/o/new', 'x', { contentType: 'text/plain' }))?.created).toBe(true);
  });
});
