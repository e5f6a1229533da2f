import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TRACE = join(import.meta.dirname, '..', 'support', 'import-trace.mjs');
/** Packages only an option or a kind of request needs: a start with the defaults answering its first request loads none. */
const NOT_AT_START = ['rdfa-streaming-parser', '@peculiar/asn1-x509', '@peculiar/asn1-schema', '@peculiar/asn1-rsa', 'jsonld', 'jose', 'sparqljs', 'ioredis', 'mongodb', 'aws4fetch', '@fedify/fedify', 'nostr-tools/pure', 'xss', '@noble/hashes/sha2.js', '@simplewebauthn/server'];
/** The optional features' code (their descriptors are loaded at every start; `feature.ts` only when on). */
/** Code only one kind of request needs: remoteStorage's (always on) and PATCH's, with its parsers and n3's store. */
const REMOTESTORAGE_HANDLER = '/src/remotestorage/handler.ts';
const PATCH_CODE = '/src/ldp/patch.ts';
const FEATURE_CODE = ['idp', 'oauth', 'mastodon', 'invites', 'notifications', 'nostr', 'activitypub', 'git', 'docdb', 'databrowser'].map((name) => `/src/${name}/feature.ts`);

interface Started {
  base: string;
  output(): string;
  stop(): Promise<void>;
}

const FROM_SOURCES = ['--import', 'tsx', join(ROOT, 'runtimes', 'node', 'cli.ts')];

/** `svc start`, from the sources unless told (the file names are then svc's own, not a bundle's), tracing every import. */
async function startTraced(args: string[] = [], entry = FROM_SOURCES): Promise<Started> {
  const root = await mkdtemp(join(tmpdir(), 'svc-imports-'));
  const child = spawn(process.execPath, ['--import', TRACE, ...entry, 'start', '-p', '0', '-h', '127.0.0.1', '-r', root, '-q', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = await eventually(async () => /svc listening on (http:\/\/[^\s/]+)/.exec(output)?.[1], 'svc listening');
  return {
    base,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(root, { recursive: true, force: true });
    },
  };
}

const imported = (output: string) => [...output.matchAll(/^svc-import (\S+) (\S+)$/gm)].map((match) => ({ specifier: match[1]!, url: match[2]! }));
const packages = (output: string) => new Set(imported(output).map((entry) => entry.specifier).filter((specifier) => !/^(\.|\/|file:)/.test(specifier)));
const featureCode = (output: string) => FEATURE_CODE.filter((file) => imported(output).some((entry) => entry.url.endsWith(file)));

describe('what a start loads', () => {
  let svc: Started | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  it('loads no module of a feature that is off, nor a parser no request has needed yet', async () => {
    svc = await startTraced();
    expect((await fetch(`${svc.base}/`)).status).toBe(200);
    const loaded = packages(svc.output());
    expect(loaded.has('hono')).toBe(true);
    expect(loaded.has('n3')).toBe(true);
    expect(NOT_AT_START.filter((name) => loaded.has(name))).toEqual([]);
    expect(featureCode(svc.output())).toEqual([]);
    expect(imported(svc.output()).filter((entry) => entry.url.endsWith(REMOTESTORAGE_HANDLER) || entry.url.endsWith(PATCH_CODE))).toEqual([]);
  });

  it("loads an enabled feature's code", async () => {
    svc = await startTraced(['--idp', '--notifications']);
    expect((await fetch(`${svc.base}/`)).status).toBe(200);
    expect(featureCode(svc.output())).toEqual(['/src/idp/feature.ts', '/src/oauth/feature.ts', '/src/mastodon/feature.ts', '/src/notifications/feature.ts']);
  });

  it('loads the HTML graph reader with the first page read as RDF', async () => {
    svc = await startTraced();
    const pod = (await (await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as { token: string };
    const authorization = `Bearer ${pod.token}`;
    const page = '<html><body><p about="#it" property="http://schema.org/name">It</p></body></html>';
    expect((await fetch(`${svc.base}/alice/page.html`, { method: 'PUT', headers: { authorization, 'content-type': 'text/html' }, body: page })).status).toBe(201);
    expect(packages(svc.output()).has('rdfa-streaming-parser')).toBe(false);
    const graph = await fetch(`${svc.base}/alice/page.html`, { headers: { authorization, accept: 'application/ld+json' } });
    expect(await graph.text()).toContain('http://schema.org/name');
    await eventually(async () => (packages(svc!.output()).has('rdfa-streaming-parser') ? true : undefined), 'the import of rdfa-streaming-parser');
  });

  it("loads remoteStorage's handler with the first request under /storage/, which it answers", async () => {
    svc = await startTraced();
    const pod = (await (await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as { token: string };
    const loaded = () => imported(svc!.output()).some((entry) => entry.url.endsWith(REMOTESTORAGE_HANDLER));
    expect(loaded()).toBe(false);
    const written = await fetch(`${svc.base}/storage/alice/notes/today.txt`, { method: 'PUT', headers: { authorization: `Bearer ${pod.token}`, 'content-type': 'text/plain' }, body: 'hello' });
    expect(written.status).toBe(201);
    expect(loaded()).toBe(true);
    const read = await fetch(`${svc.base}/storage/alice/notes/today.txt`, { headers: { authorization: `Bearer ${pod.token}` } });
    expect([read.status, await read.text()]).toEqual([200, 'hello']);
  });

  it('loads the PATCH code with the first PATCH, which it applies', async () => {
    svc = await startTraced(['--conneg']);
    const pod = (await (await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as { token: string };
    const authorization = `Bearer ${pod.token}`;
    expect((await fetch(`${svc.base}/alice/data.ttl`, { method: 'PUT', headers: { authorization, 'content-type': 'text/turtle' }, body: '<#a> <#b> <#c>.' })).status).toBe(201);
    const loaded = () => imported(svc!.output()).some((entry) => entry.url.endsWith(PATCH_CODE));
    expect(loaded()).toBe(false);
    const patch = '@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { <#d> <#e> <#f>. }.';
    expect((await fetch(`${svc.base}/alice/data.ttl`, { method: 'PATCH', headers: { authorization, 'content-type': 'text/n3' }, body: patch })).status).toBe(204);
    expect(loaded()).toBe(true);
    expect(await (await fetch(`${svc.base}/alice/data.ttl`, { headers: { authorization, accept: 'text/turtle' } })).text()).toContain('#d');
  });
});

describe('what a start of the bundle loads', () => {
  /** A build of its own: the checkout's dist/ may be older than the sources under test. */
  const dist = join(ROOT, 'test-output', `startup-imports-${process.pid}`);
  let svc: Started | undefined;
  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'build-dist.mjs'), dist], { cwd: ROOT });
  }, 120_000);
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });
  afterAll(async () => {
    await rm(dist, { recursive: true, force: true });
  });

  it('loads no package a feature that is off needs, and those of the features on (ES modules among them)', async () => {
    svc = await startTraced([], [join(dist, 'cli.js')]);
    expect((await fetch(`${svc.base}/`)).status).toBe(200);
    expect(NOT_AT_START.filter((name) => packages(svc!.output()).has(name))).toEqual([]);
    await svc.stop();
    svc = await startTraced(['--idp', '--activitypub', '--single-user', '--single-user-name', ''], [join(dist, 'cli.js')]);
    const actor = await fetch(`${svc.base}/profile/card`, { headers: { accept: 'application/activity+json' } });
    expect([actor.status, ((await actor.json()) as { type?: string }).type]).toEqual([200, 'Person']);
    expect(['jose', '@fedify/fedify'].filter((name) => packages(svc!.output()).has(name))).toEqual(['jose', '@fedify/fedify']);
  }, 60_000);
});
