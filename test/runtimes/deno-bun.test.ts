/**
 * What the Deno and Bun entry points do beyond the portable suite: the fs driver's file layout, WebSocket
 * notifications, HTTPS, and the startup refusals. Runs with `npm run test:runtimes`, which installs both.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import WebSocket from 'ws';
import { createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient } from 'masto';
import { PASSWORD } from '../idp/support.ts';
import { OOB, outOfBandCode } from '../oauth/support.ts';
import { Inbox } from '../notifications/support.ts';
import { Author } from '../nostr/support.ts';
import { runExtraRuntime, runScriptOnExtraRuntime, startExtraRuntime, type ExtraRuntime } from '../portable/servers.ts';
import type { RunningTarget } from '../portable/suite.ts';
import { safeHtml } from '../../src/activitypub/safe-html.ts';
import { startTestDatabase } from '../support/jongodb.ts';
import { SAFE_HTML_INPUTS } from './safe-html-inputs.ts';

const run = promisify(execFile);
useWebSocketImplementation(WebSocket);
const QUIET = { SVC_QUIET: 'true', SVC_RATE_LIMIT: 'false' };

for (const runtime of ['deno', 'bun'] as const satisfies readonly ExtraRuntime[]) {
  describe(`the guarded outbound fetch on ${runtime}`, () => {
    it('connects to the address its resolver checked, refuses loopback by name and by address before any request, and limits the size', async () => {
      const { code, output } = await runScriptOnExtraRuntime(runtime, 'test/runtimes/outbound-fetch-check.ts');
      expect(code, output).toBe(0);
      const result = JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(result.resolvedByGuard).toMatch(/^200 hello svc\/[\d.]+ /);
      expect(result.tooBig).toMatch(/larger than 1000 bytes/);
      expect(result.loopbackByName).toMatch(/resolves to 127\.0\.0\.1, a loopback address/);
      expect(result.loopbackByAddress).toMatch(/127\.0\.0\.1 is a loopback address/);
      expect(result.requestsSeen).toEqual(['/hello', '/big']);
    }, 60_000);
  });

  describe(`the sanitiser of remote HTML on ${runtime}`, () => {
    it('makes remote HTML safe exactly as on Node (the xss library through the runtime\'s npm support)', async () => {
      const { code, output } = await runScriptOnExtraRuntime(runtime, 'test/runtimes/safe-html-check.ts');
      expect(code, output).toBe(0);
      expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual(SAFE_HTML_INPUTS.map(safeHtml));
    }, 60_000);
  });

  describe(`the ${runtime} entry point`, () => {
    describe('with --public --notifications', () => {
      let server: RunningTarget & { root: string };
      const inboxes: Inbox[] = [];
      beforeAll(async () => {
        server = await startExtraRuntime(runtime, ['--public', '--notifications'], QUIET);
      }, 60_000);
      afterAll(async () => {
        for (const inbox of inboxes) inbox.close();
        await server?.stop();
      });

      it('stores resources as plain files under --root (the fs driver)', async () => {
        const put = await fetch(`${server.base}/notes/hello.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello files' });
        expect(put.status).toBe(201);
        expect(await readFile(join(server.root, 'notes', 'hello.txt'), 'utf8')).toBe('hello files');
      });

      it('sends solid-0.1 notifications over a WebSocket', async () => {
        const wsUrl = `${server.base.replace(/^http/, 'ws')}/.notifications`;
        expect((await fetch(`${server.base}/`, { method: 'HEAD' })).headers.get('updates-via')).toBe(wsUrl);
        const inbox = new Inbox(wsUrl, 'solid-0.1');
        inboxes.push(inbox);
        await inbox.opened;
        expect(await inbox.next()).toBe('protocol solid-0.1');
        expect(await inbox.ask(`sub ${server.base}/watched/`)).toBe(`ack ${server.base}/watched/`);
        expect((await fetch(`${server.base}/watched/doc.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(201);
        expect(await inbox.until((line) => line.startsWith('pub '))).toBe(`pub ${server.base}/watched/`);
        expect(await inbox.ask('hello')).toBe('err - malformed');
      });

      it('closes a socket that sends a frame beyond the size limit (1009)', async () => {
        const inbox = new Inbox(`${server.base.replace(/^http/, 'ws')}/.notifications`, 'solid-0.1');
        inboxes.push(inbox);
        await inbox.opened;
        inbox.socket.send('x'.repeat(100_000));
        expect((await inbox.closed).code).toBe(1009);
      });

      it('answers 404 to an upgrade at a URL that is no WebSocket endpoint', async () => {
        const inbox = new Inbox(`${server.base.replace(/^http/, 'ws')}/notes/`);
        await expect(inbox.opened).rejects.toThrow(/404/);
      });
    });

    it('runs the Nostr relay (--nostr) through the same WebSocket upgrade', async () => {
      const server = await startExtraRuntime(runtime, ['--nostr'], QUIET);
      const relay = await Relay.connect(`${server.base.replace(/^http/, 'ws')}/relay`);
      try {
        const author = new Author();
        const event = author.sign({ content: `from ${runtime}` });
        expect(await relay.publish(event)).toBe('');
        await expect(relay.publish({ ...event, content: 'forged' })).rejects.toThrow(/^invalid: /);
        const found = await new Promise<string[]>((resolve) => {
          const ids: string[] = [];
          relay.subscribe([{ authors: [author.pubkey] }], { onevent: (received) => ids.push(received.id), oneose: () => resolve(ids) });
        });
        expect(found).toEqual([event.id]);
        const info = await fetch(`${server.base}/relay`, { headers: { accept: 'application/nostr+json' } });
        expect(((await info.json()) as { supported_nips: number[] }).supported_nips).toContain(1);
      } finally {
        relay.close();
        await server.stop();
      }
    }, 60_000);

    it('serves the Mastodon streaming API (--idp --activitypub) through the same WebSocket upgrade: masto hears a post', async () => {
      const server = await startExtraRuntime(runtime, ['--idp', '--activitypub', '--single-user', '--single-user-name', '', '--ap-username', 'alice'], QUIET);
      try {
        const owner = /owner token \(send it[^\n]*\n(\S+)/.exec(server.output())![1]!;
        const registered = await fetch(`${server.base}/idp/register`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) });
        expect(registered.status).toBe(201);
        const app = await createRestAPIClient({ url: server.base }).v1.apps.create({ clientName: 'masto', redirectUris: OOB, scopes: 'read write' });
        const over = { request: (path: string, init: RequestInit = {}) => fetch(server.base + path, { ...init, redirect: 'manual' }) };
        const code = await outOfBandCode(over, { client_id: app.clientId!, client_secret: app.clientSecret! });
        const { accessToken } = await createOAuthAPIClient({ url: server.base }).token.create({ grantType: 'authorization_code', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: OOB, code });
        const rest = createRestAPIClient({ url: server.base, accessToken });
        const { urls } = await rest.v1.instance.fetch();
        const streaming = createStreamingAPIClient({ streamingApiUrl: urls.streamingApi, accessToken, implementation: WebSocket });
        const events: { event: string; payload: unknown }[] = [];
        void (async () => {
          for await (const event of streaming.user.subscribe()) events.push(event);
        })().catch(() => undefined);
        try {
          // The subscription travels as a message: post until one arrives.
          let arrived = false;
          for (let attempt = 0; attempt < 20 && !arrived; attempt++) {
            const status = await rest.v1.statuses.create({ status: `from ${runtime} ${attempt}` });
            for (let waited = 0; waited < 3000 && !arrived; waited += 100) {
              arrived = events.some((event) => event.event === 'update' && (event.payload as { id: string }).id === status.id);
              if (!arrived) await new Promise((resolve) => setTimeout(resolve, 100));
            }
          }
          expect(arrived).toBe(true);
        } finally {
          streaming.close();
        }
      } finally {
        await server.stop();
      }
    }, 120_000);

    it('counts WebSockets per client address (429 past the share) and closes those subscribed to nothing', async () => {
      const server = await startExtraRuntime(runtime, ['--public', '--notifications', '--nostr', '--max-sockets-per-address', '2', '--socket-idle-timeout', '2s'], QUIET);
      const ws = server.base.replace(/^http/, 'ws');
      const opened: Inbox[] = [];
      const inbox = (path: string) => {
        const socket = new Inbox(`${ws}${path}`, 'solid-0.1');
        opened.push(socket);
        return socket;
      };
      try {
        const subscribed = inbox('/.notifications');
        await subscribed.opened;
        expect(await subscribed.next()).toBe('protocol solid-0.1');
        expect(await subscribed.ask(`sub ${server.base}/`)).toBe(`ack ${server.base}/`);
        const idle = inbox('/relay');
        await idle.opened;
        await expect(inbox('/.notifications').opened).rejects.toThrow('upgrade refused: 429');
        expect((await fetch(`${server.base}/`)).status).toBe(200);
        expect(await idle.closed).toEqual({ code: 1001, reason: 'idle: subscribed to nothing' });
        await inbox('/relay').opened;
        expect((await fetch(`${server.base}/doc.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(201);
        expect(await subscribed.until((line) => line.startsWith('pub '))).toBe(`pub ${server.base}/`);
      } finally {
        for (const socket of opened) socket.close();
        await server.stop();
      }
    }, 60_000);

    it('keeps /db/ documents in MongoDB (--docdb, the mongodb driver through Node compatibility), with versions and listings', async () => {
      const database = await startTestDatabase();
      const server = await startExtraRuntime(runtime, ['--docdb', '--docdb-url', database.url, '--docdb-database', database.database], QUIET);
      try {
        expect(server.output()).toContain('docdb: documents under /db/ are kept in MongoDB');
        const created = await fetch(`${server.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' });
        const owner = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
        const doc = JSON.stringify({ '@id': '#it', 'http://schema.org/name': `from ${runtime}` });
        const put = await fetch(`${server.base}/db/alice/notes/one`, { method: 'PUT', headers: { ...owner, 'content-type': 'application/ld+json' }, body: doc });
        expect(put.status).toBe(201);
        const etag = put.headers.get('etag')!;
        const read = await fetch(`${server.base}/db/alice/notes/one`, { headers: owner });
        expect(await read.text()).toBe(doc);
        expect(read.headers.get('etag')).toBe(etag);
        const stale = await fetch(`${server.base}/db/alice/notes/one`, { method: 'PUT', headers: { ...owner, 'content-type': 'application/ld+json', 'if-match': '"other"' }, body: doc });
        expect(stale.status).toBe(412);
        await stale.arrayBuffer();
        const listing = await (await fetch(`${server.base}/db/alice/notes/`, { headers: owner })).text();
        expect(listing).toContain('one');
        expect((await fetch(`${server.base}/db/alice/notes/one`)).status).toBe(401);
      } finally {
        await server.stop();
        await database.stop();
      }
    }, 60_000);

    it('serves HTTPS with --ssl-key and --ssl-cert', async () => {
      const dir = await mkdtemp(join(tmpdir(), `svc-${runtime}-tls-`));
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1']);
      const server = await startExtraRuntime(runtime, ['--public', '--ssl-key', key, '--ssl-cert', cert], QUIET);
      try {
        expect(server.base.startsWith('https://')).toBe(true);
        const { stdout } = await run('curl', ['-s', '--cacert', cert, '-o', '/dev/null', '-w', '%{http_code}', `${server.base}/`]);
        expect(stdout).toBe('200');
      } finally {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('reads a -c config file: memory storage leaves --root empty', async () => {
      const dir = await mkdtemp(join(tmpdir(), `svc-${runtime}-config-`));
      const configFile = join(dir, 'svc.config.json');
      await writeFile(configFile, JSON.stringify({ storage: 'memory', public: true }));
      const server = await startExtraRuntime(runtime, ['-c', configFile], QUIET);
      try {
        expect(server.output()).toContain('storage: memory');
        expect((await fetch(`${server.base}/kept/in-memory.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'm' })).status).toBe(201);
        expect(await (await fetch(`${server.base}/kept/in-memory.txt`)).text()).toBe('m');
        expect(await readdir(server.root)).toEqual([]);
      } finally {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('with --single-user prints the pod and an owner token that works', async () => {
      const server = await startExtraRuntime(runtime, ['--single-user', '--single-user-name', 'solo'], QUIET);
      try {
        expect(server.output()).toContain(`single-user pod: ${server.base}/solo/`);
        const token = /owner token[^\n]*:\n(\S+)/.exec(server.output())?.[1];
        expect(token).toBeTruthy();
        const put = await fetch(`${server.base}/solo/private/x.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body: 'mine' });
        expect(put.status).toBe(201);
        expect((await fetch(`${server.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"other"}' })).status).toBe(403);
      } finally {
        await server.stop();
      }
    });

    it("with --single-user-name '' puts the pod at the root", async () => {
      const server = await startExtraRuntime(runtime, ['--single-user', '--single-user-name', ''], QUIET);
      try {
        expect(server.output()).toContain(`single-user pod: ${server.base}/\nWebID: ${server.base}/profile/card#me`);
      } finally {
        await server.stop();
      }
    });

    describe('refuses at startup, naming the runtime and the option', () => {
      it('--storage r2 (flag) and SVC_STORAGE=r2 (environment)', async () => {
        const byFlag = await runExtraRuntime(runtime, ['--storage', 'r2']);
        expect(byFlag.code).toBe(1);
        expect(byFlag.output).toContain(`--storage r2 (SVC_STORAGE=r2) is not available on the ${runtime} runtime`);
        const byEnv = await runExtraRuntime(runtime, [], { SVC_STORAGE: 'r2' });
        expect(byEnv.code).toBe(1);
        expect(byEnv.output).toContain(`not available on the ${runtime} runtime`);
      });

      it('a --root that cannot be used: its one line, and no notice before it as if the server were starting', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'svc-root-file-'));
        try {
          const file = join(dir, 'not-a-directory');
          await writeFile(file, 'x');
          const result = await runExtraRuntime(runtime, ['--public', '--host', '127.0.0.1', '--port', '0', '--root', file]);
          expect(result.code).toBe(1);
          expect(result.output).toContain(`cannot use --root ${file} as the data directory: that is a file`);
          expect(result.output).not.toContain('--public: access control is off');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });

      it('--git on memory storage: git needs files', async () => {
        const result = await runExtraRuntime(runtime, ['--git', '--storage', 'memory']);
        expect(result.code).toBe(1);
        expect(result.output).toContain(`the ${runtime} runtime with --storage memory does not offer`);
      });

      it('invalid values and unknown flags, with the messages of svc start', async () => {
        const badPort = await runExtraRuntime(runtime, [], { SVC_PORT: 'eighty' });
        expect(badPort.code).toBe(1);
        expect(badPort.output).toContain('Invalid value "eighty" for SVC_PORT (--port)');
        const unknown = await runExtraRuntime(runtime, ['--bogus-option']);
        expect(unknown.code).toBe(1);
        expect(unknown.output).toContain('Unknown option --bogus-option');
        const noValue = await runExtraRuntime(runtime, ['-r']);
        expect(noValue.code).toBe(1);
        expect(noValue.output).toContain('-r/--root needs a value');
        const halfTls = await runExtraRuntime(runtime, ['--ssl-key', 'key.pem']);
        expect(halfTls.code).toBe(1);
        expect(halfTls.output).toContain('--ssl-key and --ssl-cert must be given together');
      });
    });
  });
}
