/**
 * HTTP has no ping: a StreamingHTTPChannel2023 stream writes a keep-alive every half of
 * --socket-idle-timeout, so a reader that vanished without closing (its host gone: no FIN, no reset until
 * data arrives) fails a write and gives its place in the socket budget back. Against a real svc; the
 * vanished reader sits behind a TCP relay that goes silent and, like a host that no longer knows the
 * connection, answers the next bytes it is sent with a reset.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';

const AS = 'https://www.w3.org/ns/activitystreams#';
/** Keep-alives come every second here; this bounds waiting for one event, it times nothing. */
const DEADLINE_MS = 15_000;

async function until<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await attempt();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads a stream body as it comes, keeping everything read so far. */
class BodyReader {
  text = '';
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }
  /** Reads until `done(text)` holds. */
  async readUntil(what: string, done: (text: string) => boolean): Promise<string> {
    await until(what, async () => {
      if (done(this.text)) return true;
      this.#pending ??= this.#reader.read();
      const next = await Promise.race([this.#pending, new Promise<null>((resolve) => setTimeout(() => resolve(null), 200))]);
      if (next === null) return undefined;
      this.#pending = null;
      if (next.done) throw new Error(`the stream ended while waiting for ${what}`);
      this.text += this.#decoder.decode(next.value, { stream: true });
      return done(this.text) ? true : undefined;
    });
    return this.text;
  }
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

describe('StreamingHTTPChannel2023 keep-alive', () => {
  let svc: RunningSvc;
  let token: string;
  let relay: Server;
  const topic = () => `${svc.base}/alice/notes/`;
  const streamPath = () => `/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(topic())}`;
  const openStream = (accept?: string) =>
    fetch(svc.base + streamPath(), { headers: { authorization: `Bearer ${token}`, ...(accept && { accept }) } });

  beforeAll(async () => {
    svc = await startSvc(['--notifications', '--max-sockets-per-address', '2', '--socket-idle-timeout', '2s']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    token = ((await created.json()) as { token: string }).token;
    const made = await fetch(`${svc.base}/alice/notes/`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle', link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' } });
    if (made.status >= 300) throw new Error(`${made.status} ${await made.text()}`);
  }, 60_000);

  afterAll(async () => {
    relay?.close();
    await svc?.stop();
  });

  it('drops a reader that vanished without closing at its next keep-alive, and gives its place back', async () => {
    const port = Number(new URL(svc.base).port);
    // The relay's side of the reader's connection, and its connection to svc.
    let downstream!: Socket;
    let upstream!: Socket;
    relay = createServer((socket) => {
      downstream = socket;
      upstream = connect(port, '127.0.0.1');
      downstream.pipe(upstream);
      upstream.pipe(downstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const reader = connect((relay.address() as { port: number }).port, '127.0.0.1');
    let heard = '';
    reader.on('data', (chunk) => (heard += chunk));
    reader.write(`GET ${streamPath()} HTTP/1.1\r\nHost: ${new URL(svc.base).host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await until('stream answer', async () => (heard.includes('as:Update') ? true : undefined));
    expect(heard).toMatch(/^HTTP\/1\.1 200/);
    const live = await openStream();
    expect(live.status).toBe(200);

    // The reader's host goes away: nothing more passes, svc is told nothing, and the next bytes it sends are refused.
    upstream.unpipe(downstream);
    downstream.unpipe(upstream);
    downstream.destroy();
    reader.destroy();
    let reset = false;
    upstream.on('data', () => {
      reset = true;
      upstream.resetAndDestroy();
    });
    // Unpiped, it stopped reading: read again, as the host's kernel would.
    upstream.resume();

    const third = await until('free place', async () => {
      const answer = await openStream();
      if (answer.status === 200) return answer;
      expect(answer.status).toBe(429);
      await answer.body?.cancel();
      return undefined;
    });
    expect(reset).toBe(true);
    await third.body!.cancel();
    await live.body!.cancel();
  }, 60_000);

  it('a live reader still parses every notification, in Turtle and in JSON-LD, with keep-alives between them', async () => {
    const turtle = new BodyReader((await openStream()).body!);
    const jsonLd = new BodyReader((await openStream('application/ld+json')).body!);
    // Past a keep-alive in each: whitespace after the first notification.
    await turtle.readUntil('Turtle keep-alive', (text) => /\.\n\n+$/.test(text));
    await jsonLd.readUntil('JSON-LD keep-alive', (text) => /\}\n +$/.test(text));

    for (const name of ['a.txt', 'b.txt']) {
      const put = await fetch(`${topic()}${name}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: name });
      expect(put.status).toBe(201);
    }
    const added = (text: string) => (text.match(/"Add"|as:Add/g) ?? []).length;
    const turtleText = await turtle.readUntil('two Turtle notifications', (text) => added(text) === 2 && text.trimEnd().endsWith('.'));
    const jsonText = await jsonLd.readUntil('two JSON-LD notifications', (text) => added(text) === 2 && text.trimEnd().endsWith('}'));

    const quads = new Parser().parse(turtleText);
    const objects = quads.filter((q) => q.predicate.value === `${AS}object`).map((q) => q.object.value);
    expect(objects).toEqual([topic(), `${topic()}a.txt`, `${topic()}b.txt`]);
    const lines = jsonText.split('\n').slice(0, -1);
    expect(lines.map((line) => (JSON.parse(line) as { object: string }).object)).toEqual([topic(), `${topic()}a.txt`, `${topic()}b.txt`]);
    await turtle.cancel();
    await jsonLd.cancel();
  }, 60_000);
});
