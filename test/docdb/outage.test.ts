import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../src/docdb/store.ts';
import { openMongoDocumentStore } from '../../runtimes/node/docdb.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';
import { startTestDatabase, usingRealMongod, type TestDatabase } from '../support/jongodb.ts';
import { startMongoProxy, type ConnectionPolicy, type MongoProxy } from '../support/mongo-proxy.ts';
import { runSvc, startSvc, type RunningSvc } from '../support/server.ts';

const JSON_LD = 'application/ld+json';
const document = JSON.stringify({ '@id': '#it', 'http://schema.org/name': 'kept' });

const running: { svc?: RunningSvc; database?: TestDatabase } = {};
afterAll(async () => {
  await running.svc?.stop();
  await running.database?.stop();
});

async function createPod(base: string, name: string): Promise<Record<string, string>> {
  const created = await fetch(`${base}/.pods`, { method: 'POST', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' } });
  expect(created.status).toBe(201);
  return { Authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
}

/** Asks until the answer is not 503: the driver reconnects on its own, after its next server check. */
async function untilAvailable(request: () => Promise<Response>): Promise<Response> {
  for (;;) {
    const response = await request();
    if (response.status !== 503) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(usingRealMongod)('a database outage (jongodb: a real mongod is not stopped by tests)', () => {
  it('answers 503 with Retry-After while the database is down, keeps the other routes, and recovers when it is back', async () => {
    running.database = await startTestDatabase();
    const { url, database } = running.database;
    running.svc = await startSvc(['--docdb', '--docdb-url', url, '--docdb-database', database]);
    const { base } = running.svc;
    const alice = await createPod(base, 'alice');
    const write = () => fetch(`${base}/db/alice/doc`, { method: 'PUT', body: document, headers: { ...alice, 'Content-Type': JSON_LD } });
    const read = () => fetch(`${base}/db/alice/doc`, { headers: alice });
    expect((await write()).status).toBe(201);

    await running.database.stop();
    for (const response of [await read(), await write(), await fetch(`${base}/db/alice/`, { headers: alice })]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await fetch(`${base}/alice/`, { headers: alice })).status).toBe(200);
    expect(running.svc.process.exitCode).toBeNull();

    // jongodb keeps its data in memory: the restarted one is empty, so the document is written again.
    await running.database.start();
    expect((await untilAvailable(write)).status).toBe(201);
    const back = await read();
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(document);
    expect(running.svc.output().match(/is unreachable/g)).toHaveLength(1);
    expect(running.svc.output()).toContain('is reachable again');
  }, 60_000);
});

/** A 503 as an outage gives it: Retry-After and a problem document. */
async function expectUnavailable(response: Response): Promise<void> {
  expect(response.status, await response.clone().text()).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  await response.body?.cancel();
}

/**
 * The database behind a relay the test steers (test/support/mongo-proxy.ts): the failures come at exact
 * points of the protocol, not whenever a killed process happens to close its sockets, so each request's
 * answer is known in advance.
 */
describe('failures at exact points of the protocol (a relay in front of the database)', () => {
  const started: { svc?: RunningSvc; database?: TestDatabase; proxy?: MongoProxy } = {};
  afterAll(async () => {
    await started.svc?.stop();
    await started.proxy?.close();
    await started.database?.stop();
  });

  async function serverBehindProxy(policy: (connection: number) => ConnectionPolicy) {
    await started.svc?.stop();
    await started.proxy?.close();
    await started.database?.stop();
    started.database = await startTestDatabase();
    const { hostname, port } = new URL(started.database.url);
    started.proxy = await startMongoProxy({ host: hostname, port: Number(port) });
    started.proxy.setPolicy(policy);
    started.svc = await startSvc(['--docdb', '--docdb-url', started.proxy.url, '--docdb-database', started.database.database]);
    const alice = await createPod(started.svc.base, 'alice');
    const base = started.svc.base;
    return {
      proxy: started.proxy,
      svc: started.svc,
      write: () => fetch(`${base}/db/alice/doc`, { method: 'PUT', body: document, headers: { ...alice, 'Content-Type': JSON_LD } }),
      read: () => fetch(`${base}/db/alice/doc`, { headers: alice }),
      list: () => fetch(`${base}/db/alice/`, { headers: alice }),
      remove: () => fetch(`${base}/db/alice/doc`, { method: 'DELETE', headers: alice }),
    };
  }

  it.skipIf(usingRealMongod)('every connection cut at its first command, retries included: 503 for reads, writes, listings and deletes; nothing lost', async () => {
    const { proxy, write, read, list, remove } = await serverBehindProxy(() => ({ action: 'relay' }));
    expect((await write()).status).toBe(201);
    proxy.setPolicy(() => ({ action: 'cut-command' }));
    for (const request of [read, write, list, remove]) await expectUnavailable(await request());
    proxy.setPolicy(() => ({ action: 'relay' }));
    const back = await untilAvailable(read);
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(document);
  }, 60_000);

  it.skipIf(usingRealMongod)('a request waiting for a connection when a reconnection fails gets 503, not 500, and a later reconnection serves', async () => {
    const { proxy, svc, read, write } = await serverBehindProxy(() => ({ action: 'refuse' }));
    expect(svc.output()).toContain('docdb: cannot reach');
    // The reconnection's monitor (connection 1) is answered late, so the next request is surely waiting for
    // the server when it is found; the reconnection's own first connection (2) is cut at its handshake, which
    // makes it fail and close its topology, pool and all, while the request's connection (3) is still in its
    // handshake: the driver then gives the request a "closed connection pool" error (MongoPoolClosedError).
    proxy.setPolicy((connection) => (connection === 1 ? { action: 'relay', holdHandshakeMs: 1000 } : connection === 2 ? { action: 'cut-handshake' } : { action: 'relay', holdHandshakeMs: 1500 }));
    await expectUnavailable(await read());
    await expectUnavailable(await read());
    expect(svc.output()).not.toContain('internal error');
    proxy.setPolicy(() => ({ action: 'relay' }));
    expect((await untilAvailable(write)).status).toBe(201);
  }, 60_000);
});

/**
 * In the server's own process, with the real store behind the relay, so the test counts the writes that
 * reached the database: the document each write reads first (`get`) is its attempt.
 */
describe('writes while the database is down', () => {
  it('wait for no other write: the first finds the outage, the rest get 503 at once, and writes land again once it is back', async () => {
    const database = await startTestDatabase();
    const { hostname, port } = new URL(database.url);
    const proxy = await startMongoProxy({ host: hostname, port: Number(port) });
    const mongo = await openMongoDocumentStore(proxy.url, database.database);
    let attempts = 0;
    const store: DocumentStore = { ...mongo, get: (id) => (attempts++, mongo.get(id)) };
    try {
      const pod = makeApp({ docdb: true }, new MemoryDriver(), { documentStore: store });
      await pod.app.init();
      const created = await pod.request('/.pods', { method: 'POST', body: JSON.stringify({ name: 'alice' }), headers: { 'Content-Type': 'application/json' } });
      const alice = { Authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
      const write = (name: string) => pod.request(`/db/alice/${name}`, { method: 'PUT', body: document, headers: { ...alice, 'Content-Type': JSON_LD } });
      expect((await write('before')).status).toBe(201);

      proxy.setPolicy(() => ({ action: 'refuse' }));
      // Writes of one pod take its lock in turn: only the first reaches the driver, the others learn of the outage from it.
      attempts = 0;
      const queued = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((name) => write(name)));
      for (const response of queued) await expectUnavailable(response);
      expect(attempts).toBe(1);
      // Known down: refused before the lock, none of them asks the database.
      attempts = 0;
      const refused = await Promise.all(['f', 'g', 'h', 'i', 'j'].map((name) => write(name)));
      for (const response of refused) await expectUnavailable(response);
      expect(attempts).toBe(0);

      proxy.setPolicy(() => ({ action: 'relay' }));
      expect((await untilAvailable(() => write('after'))).status).toBe(201);
      expect((await pod.request('/db/alice/after', { headers: alice })).status).toBe(200);
      expect(pod.logs.filter((line) => line.includes('is unreachable'))).toHaveLength(1);
      expect(pod.logs.filter((line) => line.includes('is reachable again'))).toHaveLength(1);
    } finally {
      await mongo.close();
      await proxy.close();
      await database.stop();
    }
  }, 60_000);
});

describe.skipIf(usingRealMongod)('a database that starts after the server (jongodb)', () => {
  it('is connected to once it is up: /db/ answers 503 until then, then serves', async () => {
    const database = await startTestDatabase();
    await database.stop();
    const svc = await startSvc(['--docdb', '--docdb-url', database.url, '--docdb-database', database.database]);
    try {
      expect(svc.output()).toContain('docdb: cannot reach');
      const alice = await createPod(svc.base, 'alice');
      const write = () => fetch(`${svc.base}/db/alice/doc`, { method: 'PUT', body: document, headers: { ...alice, 'Content-Type': JSON_LD } });
      expect((await write()).status).toBe(503);
      await database.start();
      // The driver alone never recovers here (its topology stays closed): a bounded wait tells the two apart.
      const deadline = Date.now() + 20_000;
      let status = 503;
      while (status === 503 && Date.now() < deadline) {
        const response = await write();
        status = response.status;
        await response.body?.cancel();
        if (status === 503) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status).toBe(201);
      expect(svc.output()).toContain('is reachable again');
    } finally {
      await svc.stop();
      await database.stop();
    }
  }, 60_000);
});

describe('startup with an unreachable database', () => {
  it('logs it clearly, serves the other routes, and answers 503 on /db/', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const svc = await startSvc(['--docdb', '--docdb-url', `mongodb://127.0.0.1:${port}/?directConnection=true`]);
    try {
      expect(svc.output()).toMatch(/docdb: cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true, database solid .*\/db\/ answers 503 until it is reachable/);
      const alice = await createPod(svc.base, 'alice');
      expect((await fetch(`${svc.base}/alice/`, { headers: alice })).status).toBe(200);
      const refused = await fetch(`${svc.base}/db/alice/doc`, { headers: alice });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  }, 60_000);

  it('stops with a clear message when --docdb-url is not a MongoDB connection string', async () => {
    const { code, stderr } = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--docdb', '--docdb-url', 'http://user:secret@db.example/']);
    expect(code).toBe(1);
    expect(stderr).toContain('--docdb-url http://***@db.example/ is not a MongoDB connection string');
    expect(stderr).not.toContain('secret');
  });
});
