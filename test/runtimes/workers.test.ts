import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inbox } from '../notifications/support.ts';
import { dpopClient, startTestIssuer, type DpopClient, type TestIssuer } from '../auth/solid-oidc/issuer.ts';
import { buildWorkerBundle, type WorkerBundle, WORKER_COMPATIBILITY } from '../support/worker-bundle.ts';

/*
 * The Worker build (runtimes/workers bundled by `wrangler deploy --dry-run`, exactly what `wrangler deploy`
 * would upload) runs in real workerd through Miniflare, once with an R2 bucket and once with memory storage.
 * Requests go through `dispatchFetch`, so everything from routing to storage runs inside workerd.
 */
const BASE = 'http://pod.test';
const LDP_CONTAINS = 'ldp:contains';

let bundle: WorkerBundle;
let outdir: string;
let script: string;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  ({ outdir, script } = bundle);
}, 120_000);

afterAll(async () => {
  await bundle?.remove();
});

function startWorker(withBucket: boolean): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: outdir,
    ...WORKER_COMPATIBILITY,
    ...(withBucket ? { r2Buckets: ['PODS'] } : {}),
    // SVC_PUBLIC keeps this test about portability, independent of the default access control.
    bindings: { SVC_PUBLIC: 'true', SVC_QUIET: 'true', SVC_CONNEG: 'true' },
  });
}

for (const storage of ['r2', 'memory'] as const) {
  describe(`the Worker in workerd (${storage} storage)`, () => {
    let mf: Miniflare;
    const request = async (path: string, init?: RequestInit) => {
      const response = await mf.dispatchFetch(BASE + path, init as never);
      return response as unknown as Response;
    };

    beforeAll(async () => {
      mf = startWorker(storage === 'r2');
      await mf.ready;
    });
    afterAll(async () => {
      await mf?.dispose();
    });

    it(`stores resources in ${storage}`, async () => {
      const response = await request('/probe/x.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'p' });
      expect(response.status).toBe(201);
      await response.arrayBuffer();
      if (storage === 'r2') {
        const bucket = await mf.getR2Bucket('PODS');
        const object = await bucket.get('probe/x.txt');
        expect(await object?.text()).toBe('p');
        expect(await bucket.head('probe/')).not.toBeNull();
      }
    });

    it('creates with PUT and POST, and reads back body and content type', async () => {
      const put = await request('/notes/hello.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hello workers' });
      expect(put.status).toBe(201);
      expect(put.headers.get('location')).toBe(`${BASE}/notes/hello.txt`);

      const get = await request('/notes/hello.txt');
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toBe('text/plain');
      expect(get.headers.get('etag')).toMatch(/^"/);
      expect(await get.text()).toBe('hello workers');

      const post = await request('/notes/', { method: 'POST', headers: { 'Content-Type': 'text/plain', Slug: 'posted' }, body: 'from POST' });
      expect(post.status).toBe(201);
      const location = post.headers.get('location')!;
      expect(location).toBe(`${BASE}/notes/posted`);
      const posted = await request(new URL(location).pathname);
      expect(await posted.text()).toBe('from POST');
    });

    it('validates JSON-LD and converts it to Turtle (jsonld and n3 run in workerd)', async () => {
      const doc = { '@context': { name: 'http://schema.org/name' }, '@id': '#me', name: 'Worker' };
      const put = await request('/notes/card.jsonld', { method: 'PUT', headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify(doc) });
      expect(put.status).toBe(201);
      const bad = await request('/notes/bad.jsonld', { method: 'PUT', headers: { 'Content-Type': 'application/ld+json' }, body: '{"@context": ' });
      expect(bad.status).toBe(400);
      await bad.arrayBuffer();
      const turtle = await request('/notes/card.jsonld', { headers: { Accept: 'text/turtle' } });
      expect(turtle.status).toBe(200);
      expect(turtle.headers.get('content-type')).toMatch(/^text\/turtle/);
      expect(await turtle.text()).toContain('"Worker"');
    });

    it('applies If-Match and If-None-Match to updates', async () => {
      const created = await request('/cond/doc.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'v1' });
      expect(created.status).toBe(201);
      const etag = created.headers.get('etag')!;
      expect(etag).toBeTruthy();

      const good = await request('/cond/doc.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain', 'If-Match': etag }, body: 'v2' });
      expect(good.status).toBe(204);
      const stale = await request('/cond/doc.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain', 'If-Match': etag }, body: 'v3' });
      expect(stale.status).toBe(412);
      expect(stale.headers.get('content-type')).toBe('application/problem+json');
      await stale.arrayBuffer();
      const createOnly = await request('/cond/doc.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain', 'If-None-Match': '*' }, body: 'v4' });
      expect(createOnly.status).toBe(412);
      await createOnly.arrayBuffer();
      expect(await (await request('/cond/doc.txt')).text()).toBe('v2');
    });

    it('lists a container in JSON-LD with ldp:contains, and its ETag follows its members', async () => {
      await (await request('/list/a.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'a' })).arrayBuffer();
      await (await request('/list/sub/b.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'b' })).arrayBuffer();
      // Under --conneg a wildcard gets Turtle; this test reads the JSON-LD form.
      const listing = await request('/list/', { headers: { Accept: 'application/ld+json' } });
      expect(listing.status).toBe(200);
      expect(listing.headers.get('content-type')).toBe('application/ld+json');
      expect(listing.headers.get('link')).toContain('BasicContainer');
      const etag = listing.headers.get('etag')!;
      const body = (await listing.json()) as { '@graph': Record<string, unknown>[] };
      const container = body['@graph'].find((node) => node['@id'] === `${BASE}/list/`)!;
      const contains = (container.contains ?? container[LDP_CONTAINS]) as string[];
      expect([...contains].sort()).toEqual([`${BASE}/list/a.txt`, `${BASE}/list/sub/`]);

      // The tag names the JSON-LD representation: revalidated as that one.
      const unchanged = await request('/list/', { headers: { Accept: 'application/ld+json', 'If-None-Match': etag } });
      expect(unchanged.status).toBe(304);
      await (await request('/list/c.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'c' })).arrayBuffer();
      const changed = await request('/list/', { headers: { Accept: 'application/ld+json', 'If-None-Match': etag } });
      expect(changed.status).toBe(200);
      await changed.arrayBuffer();
    });

    it('deletes resources and refuses to delete a non-empty container', async () => {
      await (await request('/del/x.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'x' })).arrayBuffer();
      const notEmpty = await request('/del/', { method: 'DELETE' });
      expect(notEmpty.status).toBe(409);
      await notEmpty.arrayBuffer();

      const deleted = await request('/del/x.txt', { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      const gone = await request('/del/x.txt');
      expect(gone.status).toBe(404);
      await gone.arrayBuffer();

      const container = await request('/del/', { method: 'DELETE' });
      expect(container.status).toBe(204);
      const containerGone = await request('/del/');
      expect(containerGone.status).toBe(404);
      await containerGone.arrayBuffer();
    });

    it('serves byte ranges and refuses a resource and a container of the same name', async () => {
      await (await request('/bin/data', { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: '0123456789' })).arrayBuffer();
      const partial = await request('/bin/data', { headers: { Range: 'bytes=2-5' } });
      expect(partial.status).toBe(206);
      expect(await partial.text()).toBe('2345');
      const twin = await request('/bin/data/inner', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'no' });
      expect(twin.status).toBe(409);
      await twin.arrayBuffer();
    });
  });
}

describe('Worker configuration', () => {
  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['fs storage', { SVC_STORAGE: 'fs' }, /SVC_STORAGE=fs.*workers runtime/],
    ['s3 storage (R2 is the native path)', { SVC_STORAGE: 's3' }, /SVC_STORAGE=s3.*workers runtime.*R2/],
    ['WebSocket notifications without the Durable Object', { SVC_NOTIFICATIONS: 'true' }, /SVC_NOTIFICATIONS \(--notifications\) on the workers runtime needs the shared-state Durable Object bound as SHARED/],
    ['the Nostr relay without the Durable Object', { SVC_NOSTR: 'true' }, /SVC_NOSTR \(--nostr\) on the workers runtime needs the shared-state Durable Object bound as SHARED.*holds the relay's WebSockets and keeps its events in its SQLite storage/],
    ['TLS files', { SVC_SSL_KEY: 'key.pem', SVC_SSL_CERT: 'cert.pem' }, /SVC_SSL_KEY.*workers runtime/],
    ['single-user mode without its secret', { SVC_SINGLE_USER: 'true' }, /SVC_SINGLE_USER \(--single-user\) on the workers runtime needs SVC_SINGLE_USER_SECRET: a Worker has no startup output to print the owner token to/],
    ['ActivityPub without the Durable Object', { SVC_ACTIVITYPUB: 'true', SVC_SINGLE_USER: 'true', SVC_SINGLE_USER_NAME: '', SVC_SINGLE_USER_SECRET: 'x'.repeat(32) }, /SVC_ACTIVITYPUB \(--activitypub\) on the workers runtime needs the shared-state Durable Object bound as SHARED.*its alarm sends the queued deliveries/],
    ['live reload without the Durable Object', { SVC_LIVE_RELOAD: 'true' }, /SVC_LIVE_RELOAD \(--live-reload\) on the workers runtime needs the shared-state Durable Object bound as SHARED/],
    ['the local data browser', { SVC_DATABROWSER: 'true' }, /--databrowser serves .*workers runtime.*--databrowser-cdn/],
    ['the document database', { SVC_DOCDB: 'true' }, /--docdb needs a document database driver, which the workers runtime does not load \(the MongoDB driver speaks to the database over TCP\)/],
    ['Redis', { SVC_REDIS_URL: 'redis://127.0.0.1:6379' }, /SVC_REDIS_URL \(--redis-url\) is not available on the workers runtime: a Worker cannot hold a Redis connection/],
    ['git', { SVC_GIT: 'true' }, /--git needs git's http-backend run on the files of the pods, which the workers runtime/],
    ['WebID-TLS', { SVC_WEBID_TLS: 'true' }, /--webid-tls needs each request's TLS client certificate, and Cloudflare terminates TLS before the Worker/],
  ];
  for (const [what, vars, message] of refusals) {
    it(`refuses ${what} with a message naming the runtime and the option`, async () => {
      const mf = new Miniflare({
        modules: true,
        scriptPath: script,
        modulesRoot: outdir,
        ...WORKER_COMPATIBILITY,
        bindings: { ...vars, SVC_QUIET: 'true' },
      });
      try {
        const response = await mf.dispatchFetch(`${BASE}/`);
        expect(response.status).toBe(500);
        const problem = (await response.json()) as { detail: string };
        expect(problem.detail).toMatch(message);
      } finally {
        await mf.dispose();
      }
    });
  }
});

/** The Worker with `options` (Miniflare's), and what it logs. */
function loggingWorker(options: Partial<MiniflareOptions>): { mf: Miniflare; output: () => string } {
  let output = '';
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: outdir,
    ...WORKER_COMPATIBILITY,
    ...options,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.on('data', (chunk: Buffer) => (output += chunk));
      stderr.on('data', (chunk: Buffer) => (output += chunk));
    },
  });
  return { mf, output: () => output };
}

describe('SVC_ vars that name no option', () => {
  it('are warned about once, at the first request, with the option meant, as on Node', async () => {
    const { mf, output } = loggingWorker({ bindings: { SVC_PUBLC: 'true', SVC_QUIET: 'true' } });
    try {
      for (let i = 0; i < 2; i++) await (await mf.dispatchFetch(`${BASE}/`)).arrayBuffer();
      const warning = 'warning: SVC_PUBLC is not an option of svc and is ignored (did you mean SVC_PUBLIC?)';
      await expect.poll(output).toContain(warning);
      expect(output().split(warning)).toHaveLength(2);
    } finally {
      await mf.dispose();
    }
  });
});

describe('SVC_ vars as wrangler.toml may give them', () => {
  it('reads TOML booleans and numbers, warns about a table by name, and warns once although the Durable Object reads the vars too', async () => {
    const { mf, output } = loggingWorker({
      durableObjects: { SHARED: { className: 'SharedStateObject', useSQLite: true } },
      bindings: { SVC_PUBLIC: true, SVC_NOTIFICATIONS: true, SVC_MAX_BODY_SIZE: 8, SVC_CONNEG: { on: true }, SVC_PUBLC: 'true', SVC_QUIET: 'true' },
    });
    const put = async (body: string) => {
      const response = await mf.dispatchFetch(`${BASE}/vars/x.txt`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body });
      await response.arrayBuffer();
      return response.status;
    };
    try {
      // SVC_PUBLIC = true lets the write in without a token; SVC_MAX_BODY_SIZE = 8 refuses a larger body.
      expect(await put('small')).toBe(201);
      expect(await put('more than eight bytes')).toBe(413);
      // The Durable Object builds its app from the same vars when it takes the notification socket.
      const inbox = new Inbox((await mf.ready).href.replace(/^http/, 'ws') + '.notifications', undefined, { Host: 'pod.test' });
      await inbox.opened;
      inbox.socket.close();
      await inbox.closed;
      const table = "warning: SVC_CONNEG is an object in the Worker's vars and is ignored";
      const misspelt = 'warning: SVC_PUBLC is not an option of svc and is ignored';
      await expect.poll(output).toContain(table);
      expect(output().split(table)).toHaveLength(2);
      expect(output().split(misspelt)).toHaveLength(2);
      // The startup notices too: the isolate tells them, the object does not repeat them.
      expect(output().split('warning: --public: access control is off')).toHaveLength(2);
    } finally {
      await mf.dispose();
    }
  });
});

describe('Solid-OIDC DPoP tokens on the Worker (its outbound fetch over the global fetch)', () => {
  let issuer: TestIssuer;
  let client: DpopClient;
  let webId: string;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    webId = issuer.profile('/people/bob', [issuer.issuer]);
    client = await dpopClient();
  });
  afterAll(() => issuer.close());

  /** A Worker (memory storage, access control on) with a pod alice whose private container grants Read to bob. */
  async function workerGrantingBob(bindings: Record<string, string>): Promise<Miniflare> {
    const mf = new Miniflare({ modules: true, scriptPath: script, modulesRoot: outdir, ...WORKER_COMPATIBILITY, bindings: { SVC_QUIET: 'true', SVC_RATE_LIMIT: 'false', ...bindings } });
    await mf.ready;
    const created = (await mf.dispatchFetch(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' })) as unknown as Response;
    const { token } = (await created.json()) as { token: string };
    const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:mode acl:Read.
`;
    const put = (await mf.dispatchFetch(`${BASE}/alice/private/.acl`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body: acl })) as unknown as Response;
    expect(put.status).toBe(204);
    return mf;
  }

  async function readPrivate(mf: Miniflare): Promise<Response> {
    const url = `${BASE}/alice/private/`;
    const token = await issuer.token({ webid: webId, cnf: { jkt: client.jkt } });
    return (await mf.dispatchFetch(url, { headers: { authorization: `DPoP ${token}`, dpop: await client.proof('GET', url) } })) as unknown as Response;
  }

  it('accepts a token of an issuer on loopback with SVC_ALLOW_PRIVATE_FETCH', async () => {
    const mf = await workerGrantingBob({ SVC_ALLOW_PRIVATE_FETCH: 'true' });
    try {
      const response = await readPrivate(mf);
      expect(response.status, await response.clone().text()).toBe(200);
      await response.arrayBuffer();
    } finally {
      await mf.dispose();
    }
  });

  it('refuses it without, and no request reaches the issuer', async () => {
    const mf = await workerGrantingBob({});
    try {
      issuer.requests.length = 0;
      const response = await readPrivate(mf);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/127\.0\.0\.1 is a loopback address/);
      expect(issuer.requests).toEqual([]);
    } finally {
      await mf.dispose();
    }
  });
});

describe('the owner secret on the Worker (POST /.pods/owner-token)', () => {
  it('counts wrong secrets against --rate-limit-login per CF-Connecting-IP, and leaves other addresses alone', async () => {
    const secret = 'workers-owner-secret-0123456789abcdef';
    const mf = new Miniflare({ modules: true, scriptPath: script, modulesRoot: outdir, ...WORKER_COMPATIBILITY, bindings: { SVC_QUIET: 'true', SVC_SINGLE_USER: 'true', SVC_SINGLE_USER_SECRET: secret, SVC_RATE_LIMIT_LOGIN: '3' } });
    const ask = async (address: string, given: string) => ((await mf.dispatchFetch(`${BASE}/.pods/owner-token`, { method: 'POST', headers: { authorization: `Bearer ${given}`, 'CF-Connecting-IP': address } })) as unknown as Response).status;
    try {
      for (let i = 0; i < 3; i++) expect(await ask('203.0.113.7', 'a-wrong-guess-at-the-owner-secret-00')).toBe(401);
      expect(await ask('203.0.113.7', secret)).toBe(429);
      expect(await ask('198.51.100.9', secret)).toBe(200);
      // Plain requests are not counted per address on Workers unless SVC_RATE_LIMIT_REQUESTS asks (each would reach the one Durable Object).
      for (let i = 0; i < 3; i++) expect((await mf.dispatchFetch(`${BASE}/`, { headers: { 'CF-Connecting-IP': '203.0.113.7' } })).headers.get('ratelimit-limit')).toBeNull();
    } finally {
      await mf.dispose();
    }
  });
});

describe('the Mastodon API on the Worker', () => {
  it('without ActivityPub has no streaming API, says why, and its instance documents advertise none', async () => {
    const mf = new Miniflare({ modules: true, scriptPath: script, modulesRoot: outdir, ...WORKER_COMPATIBILITY, bindings: { SVC_IDP: 'true', SVC_QUIET: 'true' } });
    try {
      for (const init of [{}, { headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } }]) {
        const response = (await mf.dispatchFetch(`${BASE}/api/v1/streaming?stream=public`, init)) as unknown as Response;
        expect(response.status).toBe(404);
        expect(((await response.json()) as { error: string }).error).toMatch(/the streaming API carries statuses and notifications, which need ActivityPub: it is off on this server\. Turn it on with --activitypub \(SVC_ACTIVITYPUB=true\)/);
      }
      const v1 = (await (await mf.dispatchFetch(`${BASE}/api/v1/instance`)).json()) as { urls: { streaming_api: string } };
      const v2 = (await (await mf.dispatchFetch(`${BASE}/api/v2/instance`)).json()) as { configuration: { urls: { streaming: string } } };
      expect([v1.urls.streaming_api, v2.configuration.urls.streaming]).toEqual(['', '']);
    } finally {
      await mf.dispose();
    }
  });
});
