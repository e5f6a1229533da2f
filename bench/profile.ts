/**
 * Profiles svc under one workload: `npm run bench:profile -- "<workload name part>" [--duration 5] [--top 30]`.
 *
 * Starts `svc start` (from dist/) with `node --cpu-prof` on a fresh temp data dir, seeds the benchmark pod,
 * drives the workload with autocannon, stops the server and prints where its main thread spent the time
 * while under load (self and inclusive), leaving the .cpuprofile in .bench/profiles for Chrome DevTools.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure } from './load.ts';
import { OURS, startServer } from './servers.ts';
import { startBenchDpop, type BenchDpop } from './dpop.ts';
import { seedPod, WORKLOADS } from './workloads.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' }, top: { type: 'string', default: '30' } },
});
const wanted = positionals[0]?.toLowerCase();
const workload = WORKLOADS.find((candidate) => wanted && candidate.name.toLowerCase().includes(wanted));
if (!workload) {
  console.error(`usage: npm run bench:profile -- "<workload>" [--duration 5] [--connections 32] [--top 30]\nworkloads: ${WORKLOADS.map((w) => w.name).join('; ')}`);
  process.exit(2);
}
const duration = Number(values.duration);
const top = Number(values.top);
const profiles = join(import.meta.dirname, '..', '.bench', 'profiles');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const started = Date.now();
const server = await startServer({
  ...OURS,
  command: (port, dataDir) => {
    const command = OURS.command(port, dataDir);
    return { ...command, args: ['--cpu-prof', `--cpu-prof-dir=${profiles}`, ...command.args] };
  },
});
let result;
let dpop: BenchDpop | undefined;
try {
  dpop = await startBenchDpop();
  const target = await seedPod(await OURS.createOwner!(server.base), dpop);
  await measure(server.base, workload, target, { duration: 1, connections: Math.min(8, Number(values.connections)) });
  result = await measure(server.base, workload, target, { duration, connections: Number(values.connections) });
} finally {
  await server.stop();
  await dpop?.close();
}
console.log(`${workload.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, failures ${result.failures}`);

// The newest, largest profile written since we started is the server's main thread.
const files = await Promise.all((await readdir(profiles)).filter((name) => name.endsWith('.cpuprofile')).map(async (name) => ({ name, info: await stat(join(profiles, name)) })));
const file = files.filter((f) => f.info.mtimeMs >= started).sort((a, b) => b.info.size - a.info.size)[0];
if (!file) throw new Error(`no profile was written to ${profiles}`);
const profile = JSON.parse(await readFile(join(profiles, file.name), 'utf8')) as CpuProfile;

// Only the samples of the last `duration` seconds before shutdown: the load, not startup and seeding.
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const times: number[] = [];
let clock = 0;
for (const delta of profile.timeDeltas) times.push((clock += delta));
const windowStart = clock - duration * 1e6;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
const label = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
profile.samples.forEach((id, index) => {
  if (times[index]! < windowStart) return;
  const weight = profile.timeDeltas[index] ?? 0;
  total += weight;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + weight);
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
    const name = label(byId.get(current)!);
    if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + weight);
    seen.add(name);
  }
});
const print = (title: string, table: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, weight] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * weight) / total).toFixed(1).padStart(5)}%  ${name}`);
};
print('self time', self);
print('inclusive time', inclusive);
console.log(`\nprofile: ${join(profiles, file.name)} (open it in Chrome DevTools, Performance tab)`);
