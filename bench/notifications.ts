/**
 * Notification latency: write -> `pub` with many subscribed solid-0.1 sockets on loopback.
 *
 *   npx tsx bench/notifications.ts [--sockets 1000] [--writes 50] [--seconds 60]
 *
 * Starts `svc start --notifications --public` (fs driver, fresh temp dir), opens the sockets, subscribes
 * them all to one resource, then PUTs it repeatedly. For each write it records, per socket, the time from
 * sending the PUT to that socket receiving its `pub`, and the PUT's own response time. Prints p50/p99.
 * Bounded: no write starts after --seconds (the results so far are printed); if a write's `pub`s never all
 * arrive, the run is abandoned (exit 1) GRACE_MS after that.
 *
 *   npm run bench:notifications -- --sockets 200
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startSvc } from '../test/support/server.ts';
import { positiveCount } from './args.ts';

const { values } = parseArgs({
  options: { sockets: { type: 'string', default: '1000' }, writes: { type: 'string', default: '50' }, seconds: { type: 'string', default: '60' } },
});
const SOCKETS = positiveCount('sockets', values.sockets);
const WRITES = positiveCount('writes', values.writes);
const DEADLINE = Date.now() + positiveCount('seconds', values.seconds) * 1000;
/** Time the last write gets, past the deadline, for its `pub`s to arrive. */
const GRACE_MS = 10_000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${name.padEnd(28)} n=${String(sorted.length).padStart(6)}  p50=${percentile(sorted, 50).toFixed(2)}ms  p99=${percentile(sorted, 99).toFixed(2)}ms  max=${(sorted.at(-1) ?? NaN).toFixed(2)}ms`;
}

const svc = await startSvc(['--notifications', '--public', '--quiet', '--no-rate-limit', '--max-sockets-per-address', '0', '--max-connections-per-address', '0']);
const stopAll = setTimeout(() => {
  console.error(`a write's pubs did not all arrive within ${GRACE_MS / 1000}s of the ${values.seconds}s limit; abandoning the run.`);
  void svc.stop().then(() => process.exit(1));
}, DEADLINE + GRACE_MS - Date.now());

try {
  const topic = `${svc.base}/bench/topic`;
  await fetch(topic, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'start' });

  let onPub: (index: number) => void = () => {};
  const wsUrl = svc.base.replace(/^http/, 'ws') + '/.notifications';
  const sockets: WebSocket[] = [];
  const opening: Array<Promise<void>> = [];
  for (let i = 0; i < SOCKETS; i++) {
    const socket = new WebSocket(wsUrl, 'solid-0.1');
    sockets.push(socket);
    opening.push(
      new Promise((resolve, reject) => {
        socket.on('message', (data) => {
          const text = data.toString();
          if (text === `ack ${topic}`) resolve();
          else if (text.startsWith('pub ')) onPub(i);
        });
        socket.once('open', () => socket.send(`sub ${topic}`));
        socket.once('error', reject);
      }),
    );
  }
  await Promise.all(opening);
  console.log(`${SOCKETS} sockets subscribed to ${topic}`);

  const pubLatency: number[] = [];
  const lastPubLatency: number[] = [];
  const putLatency: number[] = [];
  for (let write = 0; write < WRITES && Date.now() < DEADLINE; write++) {
    let received = 0;
    const seen = new Uint8Array(SOCKETS);
    const started = performance.now();
    const allReceived = new Promise<void>((resolve) => {
      onPub = (index) => {
        if (seen[index]) return;
        seen[index] = 1;
        pubLatency.push(performance.now() - started);
        if (++received === SOCKETS) {
          lastPubLatency.push(performance.now() - started);
          resolve();
        }
      };
    });
    const response = await fetch(topic, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: `write ${write}` });
    putLatency.push(performance.now() - started);
    if (!response.ok) throw new Error(`PUT failed: ${response.status}`);
    await allReceived;
  }

  if (putLatency.length < WRITES) console.log(`--seconds ${values.seconds} reached after ${putLatency.length} of ${WRITES} writes`);
  console.log(summary('PUT response', putLatency));
  console.log(summary('write -> pub (each socket)', pubLatency));
  console.log(summary('write -> pub (last socket)', lastPubLatency));
  for (const socket of sockets) socket.terminate();
} finally {
  clearTimeout(stopAll);
  await svc.stop();
}
