import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { measurePodUsage } from '../../src/quota/record.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

/** Kills per run: a few by default, so `npm test` stays quick; SVC_CRASH_ROUNDS=100 for a thorough run. */
const ROUNDS = Number(process.env.SVC_CRASH_ROUNDS ?? 2);
/** One writer per resource: many writes in flight at once, so a kill often lands inside one. */
const RESOURCES = Array.from({ length: 24 }, (_, index) => `r${index}`);
const SVC_ARGS = ['--conneg', '--quiet'];

/**
 * The forms a resource takes, each recognisable from its bytes, so a reader can tell whether the type a
 * resource is served with belongs to the body it is served with. The names carry no extension, so every
 * type but the last needs the content-type sidecar, and alternating them changes the sidecar on each write.
 */
const FORMS = [
  { type: 'text/turtle', body: (n: number) => `<#v> <http://example.org/n> "${n}".\n`, matches: (text: string) => text.startsWith('<#v>') || text.startsWith('@prefix') },
  { type: 'application/ld+json', body: (n: number) => JSON.stringify({ '@id': '#v', 'http://example.org/n': String(n) }), matches: (text: string) => text.startsWith('{') || text.startsWith('[') },
  { type: 'text/plain', body: (n: number) => `plain ${n}`, matches: (text: string) => text.startsWith('plain ') },
  { type: 'application/octet-stream', body: (n: number) => `bytes ${n}`, matches: (text: string) => text.startsWith('bytes ') },
];

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function createPod(svc: RunningSvc): Promise<string> {
  const response = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Replaces one resource per worker, changing its type on every write, and now and then creates and deletes
 * a member, as fast as it can until the server dies under it.
 */
async function writeUntilKilled(svc: RunningSvc, token: string, worker: number, written: { count: number }): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const name = RESOURCES[worker]!;
  try {
    for (let n = worker; ; n++) {
      const form = FORMS[n % FORMS.length]!;
      const put = await fetch(`${svc.base}/alice/${name}`, { method: 'PUT', headers: { ...auth, 'content-type': form.type }, body: form.body(n) });
      if (put.status === 204) written.count++;
      if (n % 8 !== 0) continue;
      const posted = await fetch(`${svc.base}/alice/posted/`, { method: 'POST', headers: { ...auth, 'content-type': form.type, slug: `p${n % 8}` }, body: form.body(n) });
      const location = posted.headers.get('location');
      if (location && n % 16 === 0) await fetch(location, { method: 'DELETE', headers: auth });
    }
  } catch {
    // The connection died with the server.
  }
}

/** Every file under the data directory, relative to it. */
async function filesUnder(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

/** Every resource under the pod answers 200 with a type that belongs to its body. */
async function expectEveryResourceWhole(svc: RunningSvc, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const posted = await FsDriver.open(svc.root).then(async (driver) => {
    const names: string[] = [];
    for await (const member of driver.list('/alice/posted/')) names.push(member.path);
    return names;
  });
  for (const path of [...RESOURCES.map((name) => `/alice/${name}`), ...posted]) {
    const response = await fetch(svc.base + path, { headers: { ...auth, accept: '*/*' } });
    const text = await response.text();
    expect(response.status, path).toBe(200);
    const type = response.headers.get('content-type')!.split(';')[0]!;
    const form = FORMS.find((candidate) => candidate.type === type);
    expect(form?.matches(text), `${path} is served as ${type}: ${text.slice(0, 60)}`).toBe(true);
    if (type === 'text/turtle' || type === 'application/ld+json') {
      for (const accept of ['text/turtle', 'application/ld+json']) {
        expect((await fetch(svc.base + path, { headers: { ...auth, accept } })).status, `${path} as ${accept}`).toBe(200);
      }
    }
  }
}

describe('fs storage across SIGKILL', () => {
  it(`keeps body and type together, leaves no temp files and an exact quota (${ROUNDS} kills)`, { timeout: 60_000 + ROUNDS * 15_000 }, async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-crash-'));
    roots.push(root);
    let svc = await startSvc(SVC_ARGS, {}, { root });
    const token = await createPod(svc);
    expect((await fetch(`${svc.base}/alice/posted/`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } })).status).toBe(201);
    for (const [index, name] of RESOURCES.entries()) {
      const form = FORMS[index % FORMS.length]!;
      const created = await fetch(`${svc.base}/alice/${name}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': form.type }, body: form.body(index) });
      expect(created.status).toBe(201);
    }

    for (let round = 0; round < ROUNDS; round++) {
      const written = { count: 0 };
      const writers = RESOURCES.map((_, worker) => writeUntilKilled(svc, token, worker, written));
      // Once writes flow, a delay varied per round, so the kill lands at different steps of them.
      while (written.count < RESOURCES.length) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, (round * 37) % 150));
      svc.process.kill('SIGKILL');
      await svc.stop();
      await Promise.all(writers);

      const restarted = Date.now();
      svc = await startSvc(SVC_ARGS, {}, { root });
      const files = await filesUnder(root);
      // Spares (old versions kept for later writes) of the new server's own writes may be there; none older.
      const spares = files.filter((file) => file.startsWith('.svc-tmp-spare-'));
      for (const spare of spares) expect((await lstat(join(root, spare))).ctimeMs, `${spare} made before the restart`).toBeGreaterThanOrEqual(restarted - 5);
      expect(files.filter((file) => file.includes('.svc-tmp') && !spares.includes(file)), 'temp files').toEqual(['.svc-tmp-running']);
      expect(files.filter((file) => /\.svc-meta\..*\.svc-meta$/.test(file)), 'sidecar temp files').toEqual([]);
      await expectEveryResourceWhole(svc, token);
      const record = JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8')) as { used: number };
      expect(record.used, 'quota record after restart').toBe(await measurePodUsage(await FsDriver.open(root), '/alice/'));
    }

    // Writes after the last restart are counted in memory; a clean stop saves them and removes the marker,
    // so the next start recounts nothing.
    for (const [index, name] of RESOURCES.entries()) {
      const grown = await fetch(`${svc.base}/alice/${name}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'plain '.repeat(index + 3) });
      expect(grown.status).toBe(204);
    }
    expect(await svc.stop()).toBe(0);
    const record = JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8')) as { used: number };
    expect(record.used, 'quota record after a clean stop').toBe(await measurePodUsage(await FsDriver.open(root), '/alice/'));
    expect(await filesUnder(root).then((files) => files.filter((file) => file.includes('.svc-tmp')))).toEqual([]);
  });
});
