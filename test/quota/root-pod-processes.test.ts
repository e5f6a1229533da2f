/**
 * The pod at `/` against real clients of a real `svc start`: git pushes, signed ActivityPub deliveries from
 * a fedify server, and Nostr events through nostr-tools all count against its quota and are refused past
 * it. And a push into one's own pod keeps the bytes of the pod's documents under `/db/` in the count.
 */
import { Create, Follow, Note, signRequest, type Activity } from '@fedify/fedify';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER, OUTBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { ARCHIVE_CONTAINER } from '../../src/nostr/archive.ts';
import { measurePodUsage, type QuotaRecord } from '../../src/quota/record.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { useFedifyPeer } from '../activitypub/fedify-peer.ts';
import { Author } from '../nostr/support.ts';
import { eventually } from '../support/eventually.ts';
import { startTestDatabase, type TestDatabase } from '../support/jongodb.ts';
import { runSvc, startSvc, type RunningSvc } from '../support/server.ts';

useWebSocketImplementation(WebSocket);

const ROOT_POD = ['--single-user', '--single-user-name', '', '--quiet'];
const AS = 'application/activity+json';

let scratch: string;
const running: RunningSvc[] = [];
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-root-quota-'));
  await mkdir(join(scratch, 'home'));
});
afterAll(async () => {
  for (const svc of running) await svc.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function start(args: string[]): Promise<{ svc: RunningSvc; token: string }> {
  const svc = await startSvc(args);
  running.push(svc);
  return { svc, token: /owner token[^\n]*\n(\S+)/.exec(svc.output())?.[1] ?? '' };
}

const recordOf = async (root: string, pod = ''): Promise<QuotaRecord> => JSON.parse(await readFile(join(root, pod, '.quota.json'), 'utf8')) as QuotaRecord;

/** The record of the pod at `/` once the server has saved its count (it does so at most a second after a write), and what is stored. */
async function savedRecordAndUsage(root: string, outside: string[] = []): Promise<{ record: QuotaRecord; stored: number }> {
  const stored = await measurePodUsage(await FsDriver.open(root), '/', outside);
  const record = await eventually(async () => {
    const saved = await recordOf(root);
    return saved.used === stored ? saved : undefined;
  }, 'the saved count of the pod at /');
  return { record, stored };
}

function git(cwd: string, args: string[], token: string): Promise<{ code: number; stderr: string }> {
  const credentials = ['-c', `credential.helper=!f() { echo username=git; echo password=${token}; }; f`];
  const env = { PATH: process.env.PATH!, HOME: join(scratch, 'home'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  return new Promise((resolve) => {
    execFile('git', [...credentials, ...args], { cwd, env }, (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stderr }));
  });
}

async function commit(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) await writeFile(join(dir, path), content);
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.org'];
  expect((await git(dir, ['add', '-A'], '')).code).toBe(0);
  expect((await git(dir, [...identity, 'commit', '-q', '-m', 'files'], '')).code).toBe(0);
}

async function repository(name: string): Promise<string> {
  const dir = join(scratch, name);
  expect((await git(scratch, ['init', '-q', '-b', 'main', dir], '')).code).toBe(0);
  return dir;
}

describe('git pushes into the pod at /', () => {
  it('are counted, and refused past its quota with nothing changed', async () => {
    const { svc, token } = await start([...ROOT_POD, '--git', '--default-quota', '300KB']);
    const local = await repository('root-site');
    await commit(local, { 'index.html': '<h1>hi</h1>' });
    const url = `${svc.base}/public/site`;
    expect((await git(local, ['push', url, 'main'], token)).code).toBe(0);
    const before = await recordOf(svc.root);
    expect(before.used).toBe(await measurePodUsage(await FsDriver.open(svc.root), '/'));

    await commit(local, { 'big.txt': 'b'.repeat(400 * 1024) });
    const refused = await git(local, ['push', url, 'main'], token);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("the pod's storage quota leaves");
    expect((await fetch(`${url}/big.txt`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect(await recordOf(svc.root)).toEqual(before);
  }, 60_000);
});

describe('the ActivityPub inbox of the pod at /', () => {
  const peerOf = useFedifyPeer();

  it('keeps signed activities and followers under the quota, and answers 507 when the pod cannot take one', async () => {
    const { svc } = await start([...ROOT_POD, '--activitypub', '--allow-private-fetch', '--default-quota', '200KB']);
    const peer = peerOf();
    const inbox = `${svc.base}/profile/card/inbox`;
    const deliver = async (activity: Activity) => {
      const body = JSON.stringify(await activity.toJsonLd());
      const request = await signRequest(new Request(inbox, { method: 'POST', headers: { 'content-type': AS }, body }), peer.keys.privateKey, new URL(peer.keyId));
      return fetch(inbox, { method: 'POST', headers: request.headers, body });
    };
    const follow = new Follow({ id: new URL(`${peer.actorId}#follow-root`), actor: new URL(peer.actorId), object: new URL(`${svc.base}/profile/card`) });
    expect((await deliver(follow)).status).toBe(202);
    const statuses: number[] = [];
    for (let i = 0; i < 8 && !statuses.includes(507); i++) {
      const note = new Note({ id: new URL(`${peer.actorId}/posts/big-${i}`), attribution: new URL(peer.actorId), content: 'x'.repeat(40 * 1024) });
      const response = await deliver(new Create({ id: new URL(`${peer.actorId}/posts/big-${i}/activity`), actor: new URL(peer.actorId), object: note }));
      statuses.push(response.status);
      if (response.status === 507) expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    expect(statuses.slice(0, 2)).toEqual([202, 202]);
    expect(statuses.at(-1)).toBe(507);
    // The follower's record, kept under /.server/, is the pod's too.
    const { record, stored } = await savedRecordAndUsage(svc.root, [FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER, OUTBOX_CONTAINER]);
    expect(await readdir(join(svc.root, '.server', 'activitypub', 'followers'))).toHaveLength(1);
    expect(stored).toBeGreaterThan(2 * 40 * 1024);
    expect(record.used).toBeLessThanOrEqual(record.limit);
  }, 90_000);
});

describe('the Nostr relay of the pod at / (--nostr-persist)', () => {
  it('counts the events it keeps against the pod, and refuses one past the quota without storing or relaying it', async () => {
    const { svc } = await start([...ROOT_POD, '--nostr', '--nostr-persist', '--default-quota', '150KB']);
    const relay = await Relay.connect(svc.base.replace(/^http/, 'ws') + '/relay');
    relay.publishTimeout = 20_000;
    const author = new Author();
    const answers: string[] = [];
    try {
      for (let i = 0; i < 10 && !answers.some((answer) => answer.startsWith('refused')); i++) {
        const event = author.sign({ content: `${i} ` + 'n'.repeat(40 * 1024) });
        answers.push(await relay.publish(event).then(() => 'ok', (reason: unknown) => `refused ${String(reason)}`));
      }
      const refusal = answers.at(-1)!;
      expect(answers[0]).toBe('ok');
      expect(refusal).toMatch(/^refused .*error: the pod's storage quota is full/);
      const { record, stored: bytes } = await savedRecordAndUsage(svc.root, [ARCHIVE_CONTAINER]);
      expect(bytes).toBeGreaterThan(2 * 40 * 1024);
      expect(record.used).toBeLessThanOrEqual(record.limit);
      const stored = await new Promise<number>((resolve) => {
        let count = 0;
        const subscription = relay.subscribe([{ authors: [author.pubkey] }], { onevent: () => void count++, oneose: () => (subscription.close(), resolve(count)) });
      });
      expect(stored).toBe(answers.length - 1);
    } finally {
      relay.close();
    }
  }, 60_000);
});

describe('documents under /db/ and recounts of the files (jongodb)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await startTestDatabase();
  }, 30_000);
  afterAll(() => database?.stop());

  it('a git push into the pod, and svc quota reconcile, keep the bytes of its documents in used', async () => {
    const docdb = ['--docdb', '--docdb-url', database.url, '--docdb-database', database.database];
    const { svc } = await start(['-q', '--git', ...docdb]);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    const { token } = (await created.json()) as { token: string };
    const document = JSON.stringify({ '@id': '#it', 'http://schema.org/text': 'd'.repeat(5000) });
    const put = await fetch(`${svc.base}/db/alice/notes/one`, { method: 'PUT', body: document, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/ld+json' } });
    expect(put.status).toBe(201);

    const local = await repository('alice-site');
    await commit(local, { 'index.html': '<h1>alice</h1>' });
    expect((await git(local, ['push', `${svc.base}/alice/public/site`, 'main'], token)).code).toBe(0);
    const files = await measurePodUsage(await FsDriver.open(svc.root), '/alice/');
    expect(await recordOf(svc.root, 'alice')).toMatchObject({ used: files + document.length, documents: document.length });

    // svc quota reconcile measures the documents in the database named by the configuration.
    const config = join(scratch, 'docdb.json');
    await writeFile(config, JSON.stringify({ root: svc.root, docdb: true, docdbUrl: database.url, docdbDatabase: database.database }));
    await writeFile(join(svc.root, 'alice', '.quota.json'), JSON.stringify({ limit: 52428800, used: 1, documents: 7 }));
    const reconciled = await runSvc(['quota', 'reconcile', 'alice', '-c', config]);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(await recordOf(svc.root, 'alice')).toEqual({ limit: 52428800, used: files + document.length, documents: document.length });
  }, 90_000);
});
