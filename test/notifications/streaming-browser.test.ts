/**
 * Chromium (Debian's, through playwright-core) as a streaming-HTTP reader: a page on another origin finds a
 * resource's stream in its `Link` header and reads it with fetch and the pod owner's token, across origins
 * (preflight included), while the test writes. Without chromium the test is skipped, except in CI (CI=true).
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

/** Finds the stream of `topic` and appends each notification it reads to #notes (one JSON-LD line each). */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Watch</title></head><body><ol id="notes"></ol>
<script>
async function watch(topic, token) {
  const auth = { authorization: 'Bearer ' + token };
  const head = await fetch(topic, { method: 'HEAD', headers: auth });
  const link = head.headers.get('link').split(', ').find((part) => part.endsWith('rel="http://www.w3.org/ns/solid/terms#updatesViaStreamingHttp2023"'));
  const receiveFrom = link.slice(1, link.indexOf('>'));
  const response = await fetch(receiveFrom, { headers: { ...auth, accept: 'application/ld+json' } });
  let buffer = '';
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\\n')) !== -1) {
      const item = document.createElement('li');
      item.textContent = buffer.slice(0, end);
      document.getElementById('notes').append(item);
      buffer = buffer.slice(end + 1);
    }
  }
}
</script></body></html>`;

describe.skipIf(!hasChromium)('a browser reads a StreamingHTTPChannel2023 stream', () => {
  let svc: RunningSvc;
  let token: string;
  let app: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    svc = await startSvc(['--notifications', '--quiet']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    token = ((await created.json()) as { token: string }).token;
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    app = { server, origin: `http://localhost:${(server.address() as { port: number }).port}` };
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    app?.server.close();
    await svc?.stop();
  });

  it('from another origin, with the owner’s token: the current state, then the write', async () => {
    const page = await browser.newPage();
    await page.goto(app.origin + '/');
    const topic = `${svc.base}/alice/private/`;
    // Started, not awaited: the stream does not end.
    await page.evaluate(([url, bearer]) => void (window as unknown as { watch(topic: string, token: string): Promise<void> }).watch(url!, bearer!), [topic, token]);
    const notes = page.locator('#notes li');
    await expect.poll(() => notes.count(), { timeout: 10_000 }).toBe(1);
    expect(JSON.parse((await notes.nth(0).textContent())!)).toMatchObject({ type: 'Update', object: topic });
    const put = await fetch(`${topic}from-the-test.txt`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'hi' });
    expect(put.status).toBe(201);
    await expect.poll(() => notes.count(), { timeout: 10_000 }).toBe(2);
    expect(JSON.parse((await notes.nth(1).textContent())!)).toMatchObject({ type: 'Add', object: `${topic}from-the-test.txt`, target: topic });
  });
});
