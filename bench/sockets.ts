/**
 * Hostile WebSocket clients against `svc start --public --notifications --nostr` (issue 29), run as a real process
 * with a low file-descriptor limit (`ulimit -n`), on loopback:
 *
 *   npm run bench:sockets -- [--descriptors 1500] [--attempts 3000] [--svc path/to/bin/svc.js] [--args "--max-sockets 500"]
 *
 * 1. `--attempts` sockets from one address, half on /.notifications and half on the relay, at most 200 being
 *    opened at a time: how many open, how many are refused and how; then a plain GET.
 * 2. The same number spread over 100 loopback addresses (127.0.1.x): the total cap; then a plain GET.
 * 3. Nostr, 50 connections (from 50 addresses) that never read, 20 subscriptions each, then five 60 KB events:
 *    the server's RSS before and after, and how many of the 50 are still open.
 * 4. Nostr, 300 reading connections (30 addresses × 10) × 20 subscriptions × 10 filters while one client
 *    publishes 100 events: the worst latency of a tiny GET sent over and over by a separate process
 *    (bench/get-prober.ts) until the last `OK`.
 * 5. `--descriptors` + 500 plain TCP connections from one address that never send a request (each would hold a
 *    descriptor until Node's headersTimeout, 60 s): how many the server keeps, then a plain GET from another.
 *
 * `--svc` runs another tree's build (for before/after figures; extra options of this tree then go in `--args`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { Author } from '../test/nostr/support.ts';
import { SVC_BIN } from '../test/support/server.ts';
import { positiveCount } from './args.ts';
import { startGetProber, worstGetBetween } from './get-prober.ts';
import { MAX_MESSAGES_IN_FLIGHT } from '../src/nostr/connection.ts';

const { values } = parseArgs({
  options: {
    descriptors: { type: 'string', default: '1500' },
    attempts: { type: 'string', default: '3000' },
    svc: { type: 'string', default: SVC_BIN },
    args: { type: 'string', default: '' },
  },
});
const DESCRIPTORS = positiveCount('descriptors', values.descriptors);
const ATTEMPTS = positiveCount('attempts', values.attempts);
const IN_FLIGHT = 200;
const WAIT_MS = 15_000;

interface Server {
  base: string;
  process: ChildProcess;
  /** The longest the server's event loop was held since the previous call (bench/loop-probe.mjs). */
  held(): Promise<string>;
  stop(): Promise<void>;
}

const LOOP_PROBE = join(import.meta.dirname, 'loop-probe.mjs');

async function startServer(): Promise<Server> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-sockets-'));
  const args = ['start', '-p', '0', '-h', '127.0.0.1', '-r', root, '--public', '--notifications', '--nostr', '--quiet', '--no-rate-limit', ...values.args.split(' ').filter(Boolean)];
  const quoted = [process.execPath, '--import', LOOP_PROBE, values.svc, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('bash', ['-c', `ulimit -n ${DESCRIPTORS} && exec ${quoted}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc did not start:\n${output}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = /svc listening on (http:\/\/[^\s/]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', () => reject(new Error(`svc exited:\n${output}`)));
  });
  const notices = output.split('\n').filter((line) => line.startsWith('WebSockets:'));
  console.log(`svc ${args.slice(6).join(' ')} (ulimit -n ${DESCRIPTORS})${notices.length ? `\n  ${notices.join('\n  ')}` : ''}`);
  return {
    base,
    process: child,
    async held() {
      const seen = output.length;
      child.kill('SIGUSR2');
      for (;;) {
        const match = /loop-probe: (\d+) ms wall, (\d+) ms CPU/.exec(output.slice(seen));
        if (match) return `event loop held at most ${match[1]} ms (${match[2]} ms of CPU)`;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** A plain GET of the root: its status (or the error) and how long it took. */
async function plainGet(base: string): Promise<string> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}/`, { signal: AbortSignal.timeout(WAIT_MS) });
    await response.arrayBuffer();
    return `${response.status} in ${(performance.now() - started).toFixed(0)} ms`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return `failed (${cause}) after ${(performance.now() - started).toFixed(0)} ms`;
  }
}

type Outcome = { socket: WebSocket } | { refused: string };

function openSocket(url: string, localAddress?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { ...(localAddress && { localAddress }), handshakeTimeout: WAIT_MS });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      resolve({ refused: String(response.statusCode) });
      response.resume();
      socket.terminate();
    });
    socket.once('error', (error) => resolve({ refused: (error as { code?: string }).code ?? error.message }));
  });
}

/** Opens sockets with at most IN_FLIGHT handshakes at a time; returns the open ones and a count of refusals by reason. */
async function openMany(urls: readonly string[], addressOf: (index: number) => string | undefined): Promise<{ open: WebSocket[]; refused: Map<string, number> }> {
  const open: WebSocket[] = [];
  const refused = new Map<string, number>();
  let next = 0;
  const lane = async () => {
    while (next < urls.length) {
      const index = next++;
      const outcome = await openSocket(urls[index]!, addressOf(index));
      if ('socket' in outcome) open.push(outcome.socket);
      else refused.set(outcome.refused, (refused.get(outcome.refused) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { open, refused };
}

const describeRefusals = (refused: Map<string, number>) => (refused.size === 0 ? 'none refused' : [...refused].map(([reason, count]) => `${count} × ${reason}`).join(', '));

async function closeAll(sockets: readonly WebSocket[]): Promise<void> {
  for (const socket of sockets) socket.terminate();
  await new Promise((resolve) => setTimeout(resolve, 500));
}

async function manySockets(server: Server, label: string, addressOf: (index: number) => string | undefined): Promise<void> {
  const ws = server.base.replace(/^http/, 'ws');
  const urls = Array.from({ length: ATTEMPTS }, (_, index) => (index % 2 === 0 ? `${ws}/.notifications` : `${ws}/relay`));
  const before = await rssMb(server.process.pid!);
  await server.held();
  const { open, refused } = await openMany(urls, addressOf);
  const after = await rssMb(server.process.pid!);
  const get = await plainGet(server.base);
  console.log(`${label}: ${ATTEMPTS} attempted, ${open.length} open, ${describeRefusals(refused)}; RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB; plain GET: ${get}; ${await server.held()}`);
  await closeAll(open);
}

/** Connections that send nothing, all from one address: they must not leave the server without descriptors. */
async function idleConnections(server: Server): Promise<void> {
  const { port } = new URL(server.base);
  let closedByServer = 0;
  // More than the descriptors: some wait in the kernel's accept queue, which takes none.
  const attempted = DESCRIPTORS + 500;
  const sockets = await Promise.all(
    Array.from({ length: attempted }, () =>
      new Promise<Socket | null>((resolve) => {
        const socket = connect({ port: Number(port), host: '127.0.0.1' }, () => resolve(socket));
        socket.once('close', () => closedByServer++);
        socket.once('error', () => resolve(null));
      }),
    ),
  );
  // Until the server has taken what it takes from the accept queue: no close for a second.
  for (let seen = -1; seen !== closedByServer; ) {
    seen = closedByServer;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  // From another address: that one's share is spent.
  const started = performance.now();
  const get = await new Promise<string>((resolve) => {
    const sent = request({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.2', path: '/', agent: false, timeout: WAIT_MS }, (response) => {
      response.resume();
      response.once('end', () => resolve(`${response.statusCode} in ${(performance.now() - started).toFixed(0)} ms`));
    });
    sent.once('error', (error) => resolve(`failed (${(error as { code?: string }).code ?? error.message})`));
    sent.once('timeout', () => sent.destroy(new Error('timed out')));
    sent.end();
  });
  const opened = sockets.filter(Boolean).length;
  // Counted by the server's descriptors: a client may see as connected what waits in the kernel's queues.
  const descriptors = (await readdir(`/proc/${server.process.pid}/fd`)).length;
  console.log(`one address, ${attempted} idle TCP connections: ${opened} connected, ${closedByServer} closed by the server, which holds ${descriptors} descriptors of ${DESCRIPTORS}; plain GET from another address: ${get}; ${await server.held()}`);
  for (const socket of sockets) socket?.destroy();
}

/** Resolves, once the relay has answered every REQ with EOSE or CLOSED, with the ids of those it refused. */
function subscribe(socket: WebSocket, subscriptions: readonly unknown[][]): Promise<Set<string>> {
  return new Promise((resolve) => {
    let answered = 0;
    const closed = new Set<string>();
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as unknown[];
      if (message[0] === 'CLOSED') closed.add(message[1] as string);
      if ((message[0] === 'EOSE' || message[0] === 'CLOSED') && ++answered === subscriptions.length) resolve(closed);
    });
    for (const [index, filters] of subscriptions.entries()) socket.send(JSON.stringify(['REQ', `s${index}`, ...filters]));
  });
}

async function nonReadingSubscribers(server: Server): Promise<void> {
  const url = `${server.base.replace(/^http/, 'ws')}/relay`;
  const { open, refused } = await openMany(Array(50).fill(url), (index) => `127.0.2.${index + 1}`);
  await Promise.all(open.map((socket) => subscribe(socket, Array.from({ length: 20 }, () => [{ kinds: [1] }]))));
  for (const socket of open) (socket as unknown as { _socket: { pause(): void } })._socket.pause();
  const author = new Author();
  const publisher = await openSocket(url, '127.0.3.1');
  if (!('socket' in publisher)) throw new Error(`the publisher was refused: ${publisher.refused}`);
  const before = await rssMb(server.process.pid!);
  await server.held();
  for (let index = 0; index < 5; index++) publisher.socket.send(JSON.stringify(['EVENT', author.sign({ content: 'x'.repeat(60_000) + index })]));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const after = await rssMb(server.process.pid!);
  // Reading again, a socket the server dropped sees its end at once; one still open does not.
  const closedBy = new Map<string, number>();
  for (const socket of open) {
    socket.once('close', (code) => closedBy.set(String(code), (closedBy.get(String(code)) ?? 0) + 1));
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
  }
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const closed = [...closedBy].map(([code, count]) => `${count} closed with ${code}`).join(', ') || 'none closed';
  console.log(`nostr, 50 non-reading × 20 subscriptions (${describeRefusals(refused)}), five 60 KB events: RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB (+${(after - before).toFixed(0)}); ${closed}; ${await server.held()}`);
  await closeAll([...open, publisher.socket]);
}

async function fanOut(server: Server): Promise<void> {
  const url = `${server.base.replace(/^http/, 'ws')}/relay`;
  const { open, refused } = await openMany(Array(300).fill(url), (index) => `127.0.4.${(index % 30) + 1}`);
  const author = new Author();
  const tags = Array.from({ length: 100 }, (_, index) => ['t', `tag${index}`]);
  // Ten filters a subscription, with tag conditions that miss; one subscription per connection matches the events.
  const missing = (index: number) => ({ kinds: [1], '#t': Array.from({ length: 20 }, (_, value) => `miss${index}-${value}`) });
  const subscriptions = (connection: number) => Array.from({ length: 20 }, (_, index) => (index === 0 ? [{ authors: [author.pubkey] }] : Array.from({ length: 10 }, (_, filter) => missing(connection * 1000 + index * 10 + filter))));
  const refusals = await Promise.all(open.map((socket, connection) => subscribe(socket, subscriptions(connection))));
  const closed = refusals.reduce((sum, ids) => sum + ids.size, 0);
  const subscribed = refusals.map((ids) => !ids.has('s0'));
  const publisher = await openSocket(url, '127.0.3.1');
  if (!('socket' in publisher)) throw new Error(`the publisher was refused: ${publisher.refused}`);
  // The publisher keeps as many events unanswered as the relay takes at once on one connection.
  const events = Array.from({ length: 100 }, (_, index) => author.sign({ content: `fan-out ${index}`, tags }));
  let sent = 0;
  let oks = 0;
  const sendNext = () => {
    if (sent < events.length) publisher.socket.send(JSON.stringify(['EVENT', events[sent++]]));
  };
  const allAnswered = new Promise<void>((resolve) =>
    publisher.socket.on('message', (data) => {
      if (JSON.parse(data.toString())[0] !== 'OK') return;
      if (++oks === events.length) resolve();
      sendNext();
    }),
  );
  // A connection whose first subscription was admitted gets every event: delivery is over when each such
  // connection has had all 100, or has been dropped for reading too slowly (this process reads them all on a
  // loaded machine). Connections that hold no subscription (the relay's filter total) are left out.
  let dropped = 0;
  const listening = open.filter((_, connection) => subscribed[connection]);
  const allDelivered = Promise.all(
    listening.map(
      (socket) =>
        new Promise<void>((resolve) => {
          let received = 0;
          socket.on('message', (data) => data.toString().startsWith('["EVENT","s0"') && ++received === events.length && resolve());
          socket.once('close', () => {
            if (received < events.length) dropped++;
            resolve();
          });
        }),
    ),
  );
  const prober = startGetProber(`${server.base}/`, {});
  // The same GETs with nothing else going on first: what the machine's load alone costs them.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const quietFrom = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const quiet = await worstGetBetween(prober.samples, quietFrom, Date.now());
  await server.held();
  const from = Date.now();
  for (let i = 0; i < MAX_MESSAGES_IN_FLIGHT; i++) sendNext();
  await allAnswered;
  const answered = Date.now() - from;
  await allDelivered;
  const to = Date.now();
  const worst = await worstGetBetween(prober.samples, from, to);
  await prober.stop();
  console.log(
    `nostr, ${open.length} connections (${describeRefusals(refused)}) × 20 subscriptions × 10 filters (${closed} REQs refused), 100 events answered in ${answered} ms and delivered to the ${listening.length} connections holding subscriptions in ${to - from} ms (${dropped} dropped as too slow): the slowest tiny GET meanwhile ${worst.toFixed(0)} ms (${quiet.toFixed(0)} ms with nothing else going on); ${await server.held()}`,
  );
  await closeAll([...open, publisher.socket]);
}

for (const shape of [
  (server: Server) => manySockets(server, 'one address', () => undefined),
  (server: Server) => manySockets(server, '100 addresses', (index) => `127.0.1.${(index % 100) + 1}`),
  nonReadingSubscribers,
  fanOut,
  idleConnections,
]) {
  const server = await startServer();
  try {
    await shape(server);
  } finally {
    await server.stop();
  }
}
