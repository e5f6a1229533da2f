/**
 * Where svc's memory goes under load: `npm run bench:memory [-- --duration 5 --connections 32 --snapshots]`.
 *
 * Starts `svc start` (from dist/, as `npm run bench` does, without --docdb) on a fresh data directory, seeds the
 * benchmark pod, runs the read and write workloads one after another, then the scaling comparison (filling a
 * 1,000- and a 10,000-member container and listing them). After each it prints the process's resident memory
 * (VmRSS, and VmHWM: the peak so far) and what bench/memory-probe.mjs, preloaded into the server, saw at its
 * peak during that step: V8's heap (used and reserved) and the memory outside it (Buffers, ArrayBuffers).
 * With `--snapshots` the server writes a heap snapshot (`--heapsnapshot-signal`, after a full GC, so only what
 * is live) after seeding and at the end into .bench/heap, summarised here by what the objects are; writing one
 * takes memory itself, so the VmHWM printed after it is no longer the workloads'. `--cli` runs another build
 * (a baseline's dist/cli.js), `--node-options` passes flags to its Node, `--only` picks workloads, `--docdb`
 * runs svc with --docdb against jongodb (as `npm run bench` does) and adds the docdb workloads, `--server-output <file>`
 * keeps what the server printed (with `--node-options=--trace-gc`, its collections).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { positiveCount } from './args.ts';
import { measure } from './load.ts';
import { memoryOf, OURS, startServer, SVC_SCRIPT } from './servers.ts';
import { measureScaling } from './scaling.ts';
import { startBenchDocdb, withDocdb } from './docdb.ts';
import { seedDocdb, seedPod, withWriteConnections, WORKLOADS } from './workloads.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    snapshots: { type: 'boolean', default: false },
    'node-options': { type: 'string', default: '' },
    'skip-scaling': { type: 'boolean', default: false },
    only: { type: 'string' },
    cli: { type: 'string' },
    docdb: { type: 'boolean', default: false },
    'server-output': { type: 'string' },
  },
});
const duration = positiveCount('duration', values.duration);
const connections = positiveCount('connections', values.connections);
const directory = join(import.meta.dirname, '..', '.bench', 'heap');
await mkdir(directory, { recursive: true });
const extra = values['node-options'].split(' ').filter(Boolean);
// One file a run, so two runs at once do not read each other's peaks.
const probe = join(directory, `memory-probe-${process.pid}.json`);

const docdb = values.docdb ? await startBenchDocdb((line) => console.log(line)) : null;
const spec = docdb ? withDocdb(OURS, docdb) : OURS;
const server = await startServer({
  ...spec,
  command: (port, dataDir) => {
    const command = spec.command(port, dataDir);
    // Another build of svc (a baseline's dist/cli.js) in place of this checkout's bin/svc.js.
    if (values.cli) command.args[command.args.indexOf(SVC_SCRIPT)] = values.cli;
    return {
      ...command,
      env: { ...command.env, SVC_BENCH_MEMORY_PROBE: probe },
      args: ['--import', join(import.meta.dirname, 'memory-probe.mjs'), ...extra, ...(values.snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${directory}`] : []), ...command.args],
    };
  },
});

interface HeapNodeSummary {
  count: number;
  selfBytes: number;
}

/** Self sizes of a .heapsnapshot grouped by node type and constructor name, largest first. */
async function summarise(file: string): Promise<{ total: number; groups: [string, HeapNodeSummary][] }> {
  const snapshot = JSON.parse(await readFile(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snapshot.snapshot.meta.node_types[0];
  const groups = new Map<string, HeapNodeSummary>();
  let total = 0;
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const name = type === 'object' || type === 'native' || type === 'closure' ? snapshot.strings[snapshot.nodes[i + nameAt]!]! : '';
    const key = `${type}${name ? ` ${name.slice(0, 60)}` : ''}`;
    const size = snapshot.nodes[i + sizeAt]!;
    total += size;
    const group = groups.get(key) ?? { count: 0, selfBytes: 0 };
    group.count += 1;
    group.selfBytes += size;
    groups.set(key, group);
  }
  return { total, groups: [...groups].sort((a, b) => b[1].selfBytes - a[1].selfBytes) };
}

async function snapshot(label: string): Promise<void> {
  if (!values.snapshots) return;
  const before = new Set(await readdir(directory));
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; waited < 60_000; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const file = (await readdir(directory)).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (!file) continue;
    // Written in pieces: complete once it parses.
    const summary = await summarise(join(directory, file)).catch(() => null);
    if (!summary) continue;
    const { total, groups } = summary;
    console.log(`\nheap snapshot after ${label}: ${(total / 1048576).toFixed(1)} MB live (${file})`);
    for (const [key, group] of groups.slice(0, 12)) console.log(`  ${(group.selfBytes / 1048576).toFixed(2).padStart(7)} MB  ${String(group.count).padStart(8)}×  ${key}`);
    return;
  }
  throw new Error('no heap snapshot appeared within 60 s');
}

const mb = (value: number) => `${value.toFixed(0)} MB`;

/** What bench/memory-probe.mjs saw at the sample with the highest RSS, in bytes. */
interface RssSplit {
  rss: number;
  anonymous: number;
  fileBacked: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, { resident: number; used: number }>;
  bytecodeAndMetadata: number;
  compiledCode: number;
}

function describeSplit(split: RssSplit): string {
  const m = (bytes: number) => (bytes / 1048576).toFixed(1);
  const resident = Object.values(split.spaces).reduce((sum, space) => sum + space.resident, 0);
  const spaces = Object.entries(split.spaces)
    .filter(([, space]) => space.resident >= 262144)
    .map(([name, space]) => `${name.replace(/_space$/, '')} ${m(space.used)}/${m(space.resident)}`)
    .join(', ');
  return `file-backed ${m(split.fileBacked)} MB (Node's binary), anonymous ${m(split.anonymous)} MB: V8 heap resident ${m(resident)} (used/resident: ${spaces}; bytecode ${m(split.bytecodeAndMetadata)}, compiled code ${m(split.compiledCode)}), external ${m(split.external)} (ArrayBuffers ${m(split.arrayBuffers)}), the rest ${m(split.anonymous - resident)} (malloc, stacks, touched external)`;
}
try {
  const target = await seedPod(await OURS.createOwner!(server.base));
  if (docdb) target.docdb = await seedDocdb(target.owner);
  const report = async (label: string, cpuPerRequestUs?: number | null) => {
    const memory = await memoryOf(server.pid);
    const cpu = cpuPerRequestUs ? `  server CPU ${cpuPerRequestUs.toFixed(0).padStart(5)} µs/req` : '';
    const peaks = JSON.parse(await readFile(probe, 'utf8')) as Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number> & { atPeakRss: RssSplit };
    await rm(probe, { force: true });
    const inside = `heap ${mb(peaks.heapUsed / 1048576)} of ${mb(peaks.heapTotal / 1048576)}, external ${mb(peaks.external / 1048576)} (ArrayBuffers ${mb(peaks.arrayBuffers / 1048576)})`;
    console.log(`${label.padEnd(30)} RSS ${mb(memory!.currentMb).padStart(7)}  peak ${mb(memory!.peakMb).padStart(7)}  during it: RSS ${mb(peaks.rss / 1048576)}, ${inside}${cpu}`);
    console.log(`${''.padEnd(30)} at that RSS: ${describeSplit(peaks.atPeakRss)}`);
  };
  await report('after seeding');
  await snapshot('seeding');
  const workloads = withWriteConnections(WORKLOADS, [32]).filter((workload) => (!workload.runsOn || workload.runsOn(target)) && (!values.only || workload.name.toLowerCase().includes(values.only.toLowerCase())));
  for (const workload of workloads) {
    const result = await measure(server.base, workload, target, { duration, connections: workload.connections ?? connections, pid: server.pid });
    if (result.failures) console.log(`  ${workload.name}: ${result.failures} failures (${result.unexpectedStatuses.join(', ')})`);
    await report(workload.name, result.cpuPerRequestUs);
  }
  if (!values['skip-scaling']) {
    const rows = await measureScaling([{ name: 'svc', owner: target.owner }], (line) => console.log(line));
    await report(`scaling (${rows.map((row) => `${row.members}: ${row.cold.toFixed(1)}/${row.warm.toFixed(1)} ms`).join(', ')})`);
  }
  await snapshot('every workload');
} finally {
  await server.stop();
  if (values['server-output']) await writeFile(values['server-output'], server.output());
  await docdb?.stop();
}
