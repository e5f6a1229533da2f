import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';

const run = promisify(execFile);

/** Sends a request with the path exactly as given (fetch would normalise dot segments away). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

/** POSTs over a plain socket with a Slug of exactly these bytes; resolves with the status and Location. */
function postWithSlugBytes(base: string, path: string, slug: Uint8Array): Promise<{ status: number; location?: string }> {
  const url = new URL(base);
  const head = `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\nSlug: `;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), slug, Buffer.from('\r\n\r\nx', 'latin1')]));
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1.1 (\d+)/.exec(answer)?.[1]), location: /\r\nlocation: ([^\r]*)/i.exec(answer)?.[1] }));
  });
}

describe('svc start over real HTTP with the fs driver', () => {
  let server: RunningSvc;
  beforeAll(async () => {
    server = await startSvc(['-q', '--public']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('does PUT, GET, POST, list and DELETE with curl under --public', async () => {
    const curl = (...args: string[]) => run('curl', ['-s', '-S', ...args]);
    const put = await curl('-i', '-X', 'PUT', '-H', 'Content-Type: text/plain', '--data-binary', 'hello pod', `${server.base}/notes/hello.txt`);
    expect(put.stdout).toMatch(/^HTTP\/1.1 201/);
    expect((await curl(`${server.base}/notes/hello.txt`)).stdout).toBe('hello pod');
    const post = await curl('-i', '-X', 'POST', '-H', 'Content-Type: application/ld+json', '-H', 'Slug: card',
      '--data-binary', '{"@id": "#me", "http://xmlns.com/foaf/0.1/name": "Alice"}', `${server.base}/notes/`);
    expect(post.stdout).toMatch(/^HTTP\/1.1 201/);
    expect(post.stdout).toMatch(new RegExp(`location: ${server.base}/notes/card`, 'i'));
    const listing = JSON.parse((await curl(`${server.base}/notes/`)).stdout);
    expect(JSON.stringify(listing)).toContain(`${server.base}/notes/card`);
    const deleted = await curl('-i', '-X', 'DELETE', `${server.base}/notes/hello.txt`);
    expect(deleted.stdout).toMatch(/^HTTP\/1.1 204/);
  });

  it('keeps files readable on disk with their content type preserved', async () => {
    await fetch(`${server.base}/disk/note`, { method: 'PUT', body: 'plain words', headers: { 'Content-Type': 'text/plain' } });
    expect(await readFile(join(server.root, 'disk', 'note'), 'utf8')).toBe('plain words');
    const response = await fetch(`${server.base}/disk/note`);
    expect(response.headers.get('content-type')).toBe('text/plain');
    const listing = await (await fetch(`${server.base}/disk/`)).text();
    expect(listing).not.toContain('svc-meta');
  });

  it('reads a Slug sent as raw UTF-8 bytes as UTF-8, and gives one that is not UTF-8 a fresh name', async () => {
    const name = 'café-日本.txt';
    const curl = await run('curl', ['-s', '-S', '-i', '-X', 'POST', '-H', 'Content-Type: text/plain', '-H', `Slug: ${name}`, '--data-binary', 'utf-8 name', `${server.base}/utf8/`]);
    expect(curl.stdout).toMatch(/^HTTP\/1.1 201/);
    expect(curl.stdout).toContain(`location: ${server.base}/utf8/caf%C3%A9-%E6%97%A5%E6%9C%AC.txt`);
    expect(await readdir(join(server.root, 'utf8'))).toEqual([name]);
    expect(await (await fetch(`${server.base}/utf8/${encodeURIComponent(name)}`)).text()).toBe('utf-8 name');

    const sent = await postWithSlugBytes(server.base, '/utf8b/', new TextEncoder().encode('ünïcode'));
    expect(sent).toMatchObject({ status: 201, location: `${server.base}/utf8b/%C3%BCn%C3%AFcode` });
    const latin1 = await postWithSlugBytes(server.base, '/utf8c/', Uint8Array.of(0x63, 0x61, 0x66, 0xe9));
    expect(latin1.status).toBe(201);
    expect(latin1.location).toMatch(new RegExp(`^${server.base}/utf8c/[0-9a-f-]{36}$`));
  });

  it('refuses dot segments and backslashes in the raw path', async () => {
    for (const path of ['/a/../../etc/passwd', '/a/%2e%2e/b', '/./a', '/a/..#x', '/a/.?q', '/a\\b', '/a%5Cb']) {
      expect((await rawGet(server.base, path)).status).toBe(400);
    }
    // A browser app reading the refusal needs the same CORS headers as on every other answer.
    const refused = await rawGet(server.base, '/a/../b', { origin: 'https://app.example' });
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('serves every write at once: bodies, content types and listings', async () => {
    const listing = async () => JSON.stringify(await (await fetch(`${server.base}/fresh/`)).json());
    for (let i = 0; i < 20; i++) {
      const type = i % 2 ? 'text/markdown' : 'text/plain';
      const put = await fetch(`${server.base}/fresh/note`, { method: 'PUT', body: `v${i % 10}`, headers: { 'Content-Type': type } });
      expect(put.status).toBe(i === 0 ? 201 : 204);
      const read = await fetch(`${server.base}/fresh/note`);
      expect(read.headers.get('content-type')).toBe(type);
      expect(read.headers.get('etag')).toBe(put.headers.get('etag'));
      expect(await read.text()).toBe(`v${i % 10}`);
      await fetch(`${server.base}/fresh/m${i}`, { method: 'PUT', body: 'm', headers: { 'Content-Type': 'text/plain' } });
      expect(await listing()).toContain(`${server.base}/fresh/m${i}"`);
      if (i > 0) {
        expect((await fetch(`${server.base}/fresh/m${i - 1}`, { method: 'DELETE' })).status).toBe(204);
        expect(await listing()).not.toContain(`${server.base}/fresh/m${i - 1}"`);
      }
    }
  });

  it('streams a large body to disk and back', async () => {
    const size = 8 * 1024 * 1024;
    const bytes = new Uint8Array(size).map((_, i) => i % 251);
    const put = await fetch(`${server.base}/big/blob.bin`, { method: 'PUT', body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
    expect(put.status).toBe(201);
    const back = new Uint8Array(await (await fetch(`${server.base}/big/blob.bin`)).arrayBuffer());
    expect(back.length).toBe(size);
    expect(back[size - 1]).toBe((size - 1) % 251);
  });
});

describe('svc start with a body size limit', () => {
  it('refuses an oversized streamed body with 413 and leaves nothing on disk', async () => {
    const server = await startSvc(['-q', '--public', '--max-body-size', '1KB']);
    try {
      const before = (await readdir(server.root)).sort();
      const oversized = () =>
        new ReadableStream({
          start(controller) {
            for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(512).fill(120));
            controller.close();
          },
        });
      const send = (method: string, path: string) =>
        fetch(`${server.base}${path}`, { method, body: oversized(), headers: { 'Content-Type': 'text/plain' }, duplex: 'half' } as RequestInit);
      for (const [method, path] of [['PUT', '/up/deep/file'], ['POST', '/up2/deep/'], ['PUT', '/top-file']]) {
        const response = await send(method!, path!);
        expect(response.status).toBe(413);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
      }
      expect((await readdir(server.root)).sort()).toEqual(before);
    } finally {
      await server.stop();
    }
  });
});

describe('svc start with TLS', () => {
  it('serves HTTPS with --ssl-key and --ssl-cert', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'svc-tls-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1']);
    const server = await startSvc(['-q', '--public', '--ssl-key', key, '--ssl-cert', cert]);
    try {
      expect(server.base.startsWith('https://')).toBe(true);
      const { stdout } = await run('curl', ['-s', '-k', '-o', '/dev/null', '-w', '%{http_code}', `${server.base}/`]);
      expect(stdout).toBe('200');
    } finally {
      await server.stop();
    }
  });
});
