/**
 * The portable suite's notification cases that need the server to keep working after a request: a
 * WebhookChannel2023 subscription POSTed to a receiver on loopback, and a StreamingHTTPChannel2023 stream
 * read over HTTP. Where the runtime cannot offer them (a Workers isolate), the cases check that their URLs
 * answer 501 with the reason, and that the storage description offers no webhooks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../notifications/webhook-receiver.ts';
import type { RunningTarget } from './suite.ts';

export const NOTIFICATION_OPTIONS: Readonly<Record<string, string>> = {
  SVC_QUIET: 'true',
  SVC_RATE_LIMIT: 'false',
  SVC_NOTIFICATIONS: 'true',
  // The webhook receiver listens on loopback.
  SVC_ALLOW_PRIVATE_FETCH: 'true',
};

const STREAM_REL = 'http://www.w3.org/ns/solid/terms#updatesViaStreamingHttp2023';
const WEBHOOKS = '/.notifications/WebhookChannel2023/';
const WAIT_MS = 20_000;

/** Reads an HTTP response body until `done` holds for what came so far; fails after WAIT_MS. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + WAIT_MS;
  try {
    while (!done(text)) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no notification in time; read so far: ${text}`)), Math.max(1, deadline - Date.now()))));
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error(`the stream ended; read: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
    return text;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Registers the cases for one runtime. `heldChannels`: whether the runtime offers streams and webhooks
 * (false: the cases check the refusal instead).
 */
export function describePortableNotifications(runtime: string, start: (options: Readonly<Record<string, string>>) => Promise<RunningTarget>, heldChannels: boolean): void {
  describe(`portable notification cases on ${runtime}`, { timeout: 60_000 }, () => {
    let target: RunningTarget;
    let receiver: WebhookReceiver;
    let owner: Record<string, string>;
    const put = (path: string, body: string) => fetch(target.base + path, { method: 'PUT', headers: { ...owner, 'content-type': 'text/plain' }, body });

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      target = await start(NOTIFICATION_OPTIONS);
      const created = await fetch(`${target.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' });
      if (created.status !== 201) throw new Error(`creating the pod: ${created.status} ${await created.text()}\n${target.output()}`);
      owner = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
    }, 120_000);

    afterAll(async () => {
      await target?.stop();
      await receiver?.close();
    });

    if (heldChannels) {
      it('POSTs a WebhookChannel2023 notification of a write to the subscriber', async () => {
        const topic = `${target.base}/alice/hooked/`;
        expect((await put('/alice/hooked/first.txt', 'one')).status).toBe(201);
        const subscribed = await fetch(target.base + WEBHOOKS, {
          method: 'POST',
          headers: { ...owner, 'content-type': 'application/ld+json' },
          body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'WebhookChannel2023', topic, sendTo: `${receiver.url}${runtime}` }),
        });
        expect(subscribed.status, await subscribed.clone().text()).toBe(200);
        await subscribed.arrayBuffer();
        const before = receiver.received.length;
        expect((await put('/alice/hooked/second.txt', 'two')).status).toBe(201);
        const [request] = (await receiver.waitFor(before + 1)).slice(before);
        expect(request!.path).toBe(`/${runtime}`);
        expect(JSON.parse(request!.body)).toMatchObject({ type: 'Add', object: `${topic}second.txt`, target: topic });
      });

      it('streams StreamingHTTPChannel2023 notifications over a held response: the state, then a change', async () => {
        const created = await put('/alice/streamed.txt', 'one');
        const link = (created.headers.get('link') ?? '').split(', ').find((part) => part.includes(STREAM_REL));
        expect(link).toBeDefined();
        const receiveFrom = /^<([^>]+)>/.exec(link!)![1]!;
        const stream = await fetch(receiveFrom, { headers: { ...owner, accept: 'application/ld+json' } });
        expect(stream.status).toBe(200);
        expect(stream.headers.get('content-type')).toBe('application/ld+json');
        const lines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; object: string });
        const changed = readUntil(stream.body!, (text) => lines(text).length >= 2);
        // The current state comes first; the write after it is the second line.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await put('/alice/streamed.txt', 'two')).status).toBe(204);
        const [state, update] = lines(await changed);
        expect(state).toMatchObject({ type: 'Update', object: `${target.base}/alice/streamed.txt` });
        expect(update).toMatchObject({ type: 'Update', object: `${target.base}/alice/streamed.txt` });
      });
    } else {
      it('refuses streams and webhooks with 501 and the reason, and neither is advertised', async () => {
        const created = await put('/alice/plain.txt', 'one');
        expect(created.status).toBe(201);
        expect(created.headers.get('link') ?? '').not.toContain(STREAM_REL);
        const description = JSON.stringify(await (await fetch(`${target.base}/.well-known/solid`)).json());
        expect(description).not.toContain('WebhookChannel2023');
        expect(description).toContain('WebSocketChannel2023');
        const stream = await fetch(`${target.base}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${target.base}/alice/plain.txt`)}`, { headers: owner });
        const webhook = await fetch(target.base + WEBHOOKS, { method: 'POST', headers: { ...owner, 'content-type': 'application/ld+json' }, body: '{}' });
        for (const refused of [stream, webhook]) {
          expect(refused.status).toBe(501);
          expect(refused.headers.get('content-type')).toBe('application/problem+json');
          expect(((await refused.json()) as { detail: string }).detail).toMatch(new RegExp(`not offered on the ${runtime} runtime: an instance there cannot hear the writes made through the others`));
        }
      });
    }
  });
}
