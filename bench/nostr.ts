/**
 * Nostr relay throughput and fan-out, on loopback against `svc start --nostr` (fresh temp dir, rate limits off).
 *
 *   npm run bench:nostr -- [--events 1000] [--publishers 4] [--subscribers 100] [--writes 50] [--persist]
 *
 * 1. Accepted events per second: the events are signed first (client work, not timed), then --publishers
 *    connections send their share, each keeping MAX_MESSAGES_IN_FLIGHT (64) unanswered, the most the relay
 *    takes at once on one connection, and the clock stops at the last `OK true`. Every event is
 *    verified (id hash and BIP-340 signature), indexed and stored (the default --nostr-max-events 1000, so
 *    eviction runs too); with --persist each is also written under /.server/nostr/ before its OK.
 * 2. Fan-out: --subscribers raw WebSocket clients hold a REQ for the benchmark's tag; one client publishes
 *    --writes events one after another, and for each the time from sending it to each subscriber receiving it
 *    is recorded. Clients parse JSON only (no client-side signature checks, which would be the bench's own cost).
 */
import { parseArgs } from 'node:util';
import { verifyEvent } from 'nostr-tools/pure';
import WebSocket from 'ws';
import { startSvc } from '../test/support/server.ts';
import { Author } from '../test/nostr/support.ts';
import { positiveCount } from './args.ts';
import { MAX_MESSAGES_IN_FLIGHT } from '../src/nostr/connection.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000' },
    publishers: { type: 'string', default: '4' },
    subscribers: { type: 'string', default: '100' },
    writes: { type: 'string', default: '50' },
    persist: { type: 'boolean', default: false },
  },
});
const EVENTS = positiveCount('events', values.events);
const PUBLISHERS = positiveCount('publishers', values.publishers);
const SUBSCRIBERS = positiveCount('subscribers', values.subscribers);
const WRITES = positiveCount('writes', values.writes);
/** Bound on every wait, so a lost message ends the run instead of hanging it. */
const WAIT_MS = 120_000;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${name.padEnd(34)} n=${String(sorted.length).padStart(6)}  p50=${percentile(sorted, 50).toFixed(2)}ms  p99=${percentile(sorted, 99).toFixed(2)}ms  max=${(sorted.at(-1) ?? NaN).toFixed(2)}ms`;
}
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${WAIT_MS / 1000}s`)), WAIT_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
function open(url: string, onMessage: (message: unknown[]) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('message', (data) => onMessage(JSON.parse(data.toString()) as unknown[]));
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

const args = ['--nostr', '--quiet', '--no-rate-limit', '--max-sockets-per-address', '0', '--max-connections-per-address', '0', ...(values.persist ? ['--nostr-persist'] : [])];
const svc = await startSvc(args);
const sockets: WebSocket[] = [];
try {
  const url = svc.base.replace(/^http/, 'ws') + '/relay';
  console.log(`svc start ${args.join(' ')}`);

  const authors = Array.from({ length: PUBLISHERS }, () => new Author());
  const signingStarted = performance.now();
  const batches = authors.map((author, p) =>
    Array.from({ length: Math.ceil(EVENTS / PUBLISHERS) }, (_, i) => author.sign({ content: `bench ${p}/${i}`, tags: [['t', 'throughput']] })),
  );
  console.log(`signed ${batches.flat().length} events in ${((performance.now() - signingStarted) / 1000).toFixed(1)}s (not timed)`);

  // What the relay's floor is: the same signature check, alone, in this process (copies, as nostr-tools caches).
  const sample = batches.flat().slice(0, 200).map((event) => JSON.parse(JSON.stringify(event)) as typeof event);
  const verifyStarted = performance.now();
  for (const event of sample) verifyEvent(event);
  console.log(`BIP-340 check alone (nostr-tools verifyEvent): ${((performance.now() - verifyStarted) / sample.length).toFixed(2)} ms/event here`);

  let refused = 0;
  // Each connection keeps as many events unanswered as the relay handles at once on one connection.
  const publishing = batches.map(async (batch) => {
    let answered = 0;
    let sent = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    const sendNext = () => {
      if (sent < batch.length) socket.send(JSON.stringify(['EVENT', batch[sent++]]));
    };
    const socket = await open(url, (message) => {
      if (message[0] !== 'OK') return;
      if (message[2] !== true) refused++;
      if (++answered === batch.length) done();
      sendNext();
    });
    sockets.push(socket);
    return { sendNext, finished };
  });
  const publishers = await Promise.all(publishing);
  const started = performance.now();
  for (const { sendNext } of publishers) for (let i = 0; i < MAX_MESSAGES_IN_FLIGHT; i++) sendNext();
  await within(Promise.all(publishers.map((publisher) => publisher.finished)), 'waiting for OKs');
  const seconds = (performance.now() - started) / 1000;
  const total = batches.flat().length;
  console.log(`accepted ${total - refused} of ${total} events over ${PUBLISHERS} connections in ${seconds.toFixed(2)}s: ${((total - refused) / seconds).toFixed(0)} events/s`);
  if (refused > 0) throw new Error(`${refused} events were refused`);

  let onEvent: (index: number) => void = () => {};
  const subscribed = Array.from({ length: SUBSCRIBERS }, async (_, index) => {
    let eose: () => void = () => {};
    const ready = new Promise<void>((resolve) => (eose = resolve));
    const socket = await open(url, (message) => {
      if (message[0] === 'EOSE') eose();
      else if (message[0] === 'EVENT') onEvent(index);
    });
    sockets.push(socket);
    socket.send(JSON.stringify(['REQ', 'fanout', { '#t': ['fanout'], limit: 0 }]));
    await ready;
  });
  await within(Promise.all(subscribed), 'subscribing');
  console.log(`${SUBSCRIBERS} subscribers hold ["REQ", "fanout", {"#t": ["fanout"]}]`);

  const writer = new Author();
  const fanout = Array.from({ length: WRITES }, (_, i) => writer.sign({ content: `fan-out ${i}`, tags: [['t', 'fanout']] }));
  const publisher = await open(url, () => {});
  sockets.push(publisher);
  const each: number[] = [];
  const last: number[] = [];
  for (const event of fanout) {
    const seen = new Uint8Array(SUBSCRIBERS);
    let received = 0;
    const sent = performance.now();
    const all = new Promise<void>((resolve) => {
      onEvent = (index) => {
        if (seen[index]) return;
        seen[index] = 1;
        each.push(performance.now() - sent);
        if (++received === SUBSCRIBERS) {
          last.push(performance.now() - sent);
          resolve();
        }
      };
    });
    publisher.send(JSON.stringify(['EVENT', event]));
    await within(all, 'fan-out');
  }
  console.log(summary('publish -> EVENT (each subscriber)', each));
  console.log(summary('publish -> EVENT (last subscriber)', last));
} finally {
  for (const socket of sockets) socket.terminate();
  await svc.stop();
}
