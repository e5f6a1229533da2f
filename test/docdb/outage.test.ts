import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDatabase, usingRealMongod, type TestDatabase } from '../support/jongodb.ts';
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
