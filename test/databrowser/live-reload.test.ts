/**
 * `--live-reload` against a real svc process: HTML pages carry the reload script, a write over HTTP tells
 * the sockets watching the page (and its container), and a page the caller may not read cannot be watched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startSvc, type RunningSvc } from '../support/server.ts';

const PAGE = '<!doctype html><html><body><p>hello</p></body></html>';

/** Opens a reload socket for a page path; resolves once it is open, or rejects with the refusal's status. */
function watchPage(svc: RunningSvc, path: string): Promise<{ socket: WebSocket; messages: string[]; next(): Promise<string> }> {
  const socket = new WebSocket(`${svc.base.replace('http', 'ws')}/.live-reload?path=${encodeURIComponent(path)}`);
  const messages: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  socket.on('message', (data) => {
    const text = data.toString();
    messages.push(text);
    waiting.shift()?.(text);
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages, next: () => new Promise((done) => waiting.push(done)) }));
    socket.once('unexpected-response', (_request, response) => reject(new Error(`refused: ${response.statusCode}`)));
  });
}

describe('--live-reload', () => {
  let open: RunningSvc;
  let guarded: RunningSvc;

  beforeAll(async () => {
    [open, guarded] = await Promise.all([startSvc(['--public', '--live-reload']), startSvc(['--live-reload'])]);
    const put = await fetch(`${open.base}/site/index.html`, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: PAGE });
    expect(put.status).toBe(201);
  });

  afterAll(async () => {
    await Promise.all([open?.stop(), guarded?.stop()]);
  });

  it('adds the reload script to HTML pages, and to no other type', async () => {
    const page = await fetch(`${open.base}/site/index.html`);
    const html = await page.text();
    expect(html).toBe('<!doctype html><html><body><p>hello</p><script src="/.live-reload.js"></script></body></html>');
    expect(page.headers.get('content-length')).toBe(String(new TextEncoder().encode(html).length));
    const script = await fetch(`${open.base}/.live-reload.js`);
    expect(await script.text()).toContain('location.reload()');
    await fetch(`${open.base}/site/data.json`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await (await fetch(`${open.base}/site/data.json`)).text()).toBe('{}');
  });

  it('tells the page and its container when the page is written over HTTP', async () => {
    const page = await watchPage(open, '/site/index.html');
    const container = await watchPage(open, '/site/');
    const other = await watchPage(open, '/elsewhere/');
    const heard = Promise.all([page.next(), container.next()]);
    const put = await fetch(`${open.base}/site/index.html`, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: PAGE.replace('hello', 'changed') });
    expect(put.status).toBe(204);
    await expect(heard).resolves.toEqual(['reload', 'reload']);
    expect(other.messages).toEqual([]);
    for (const watcher of [page, container, other]) watcher.socket.close();
  });

  it('refuses to watch a page the caller may not read, and a malformed path', async () => {
    await expect(watchPage(guarded, '/private/page.html')).rejects.toThrow('refused: 401');
    await expect(watchPage(open, 'no-slash')).rejects.toThrow('refused: 400');
  });
});
