/**
 * The benchmark: `npm run bench [-- options]`. See docs/benchmarks.md.
 *
 * Starts svc (fs driver, fresh temp dir, request log and rate limits off), a bare Hono-on-Node ceiling and,
 * with --peers, javascript-solid-server and Community Solid Server, all on loopback; seeds one pod per Solid
 * server through HTTP; then runs every workload against every server, interleaved, for --rounds rounds.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { baselineSpec } from './baseline.ts';
import { startBenchDocdb, withDocdb } from './docdb.ts';
import { startBenchDpop, type BenchDpop } from './dpop.ts';
import { hostileReport, runHostileChecks, type HostileResult } from './hostile.ts';
import { measure, type Measurement } from './load.ts';
import { ensurePeersInstalled } from './peers.ts';
import { RssPhases } from './rss-phases.ts';
import { measureScaling, type ScalingRow } from './scaling.ts';
import { runScaleOut, scaleOutReport, type ScaleOutRow } from './scale-out.ts';
import { markdownReport, type ServerReport, type WorkloadRow } from './report.ts';
import { startTestS3 } from '../test/support/s3.ts';
import { CEILING, CSS, diskUsage, JSS, memoryOf, OURS, oursOnS3, startServer, type RunningServer, type ServerSpec } from './servers.ts';
import { CEILING_WORKLOAD, fillExtensionless, MEMBERS, seedDocdb, seedPod, withWriteConnections, WORKLOADS, type Target } from './workloads.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    peers: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    'write-connections': { type: 'string', default: '1,32' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    'skip-scaling': { type: 'boolean', default: false },
    'skip-hostile': { type: 'boolean', default: false },
    'skip-scale-out': { type: 'boolean', default: false },
    'skip-s3': { type: 'boolean', default: false },
    'skip-footprint': { type: 'boolean', default: false },
    'startup-runs': { type: 'string', default: '3' },
    out: { type: 'string', default: join(import.meta.dirname, '..', '.bench', 'results.json') },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`npm run bench -- [options]

  --peers              also run javascript-solid-server@0.0.81 and @solid/community-server@7.2.0
                       (installed on first use into .bench/peers, not into the project)
  --baseline <git ref> also run svc as of that commit (bench/baseline.ts), interleaved like a peer
  --duration <s>       seconds per workload, server and round (default 5)
  --connections <n>    concurrent connections (default 32)
  --write-connections <n,m,...>
                       the write workloads (PUT, POST, PATCH) run once per count (default 1,32)
  --rounds <n>         rounds; servers are interleaved within each round (default 2)
  --warmup <s>         unrecorded seconds per workload and server before round 1 (default 1)
  --only <text>        run only workloads whose name contains this text (several: "GET small|HEAD")
  --skip-scaling       skip the 1,000 vs 10,000-member container listing comparison
  --skip-footprint     skip the disk footprint of 1,000 small extension-less members
  --skip-hostile       skip the hostile-body check (how long each holds the event loop; bench/hostile.ts)
  --skip-scale-out     skip one instance vs three sharing a redis-server (bench/scale-out.ts)
  --skip-s3            skip svc-s3: svc on --storage s3 against a local S3-protocol server (s3rver)
  --startup-runs <n>   spawns per server for the startup time (median; default 3)
  --out <file>         JSON results (default .bench/results.json)`);
  process.exit(0);
}

const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`--${name} must be a positive number, not ${text}`);
  return value;
};
const duration = positive('duration', values.duration);
const connections = Math.round(positive('connections', values.connections));
const rounds = Math.round(positive('rounds', values.rounds));
const warmup = Number(values.warmup);
const startupRuns = Math.round(positive('startup-runs', values['startup-runs']));
const writeConnections = values['write-connections'].split(',').map((text) => Math.round(positive('write-connections', text)));
const wanted = values.only?.toLowerCase().split('|');
const workloads = withWriteConnections(WORKLOADS, writeConnections).filter((workload) => !wanted || wanted.some((text) => workload.name.toLowerCase().includes(text)));
const log = (line: string) => console.error(`[bench] ${line}`);

/** "500×3", "500×4" -> "500×7": counts of one status over the rounds. */
function mergeStatuses(statuses: string[]): string[] {
  const counts = new Map<string, number>();
  for (const entry of statuses) {
    const [status, count] = entry.split('×');
    counts.set(status!, (counts.get(status!) ?? 0) + (count === undefined ? 1 : Number(count)));
  }
  return [...counts].map(([status, count]) => (status.startsWith('no answer') ? status : `${status}×${count}`));
}

/**
 * Spawns a server several times and keeps the median time to its first 200; the last one stays running.
 * With `timed`, the timed spawns start that instead and `spec` starts once more to stay: svc is timed without
 * --docdb, whose first answer waits for the database, so its figure compares with the baseline's and the peers'.
 */
async function startTimed(spec: ServerSpec, timed: ServerSpec = spec): Promise<RunningServer> {
  const times: number[] = [];
  for (let run = 1; ; run++) {
    const server = await startServer(timed);
    times.push(server.startupMs);
    if (run >= startupRuns && timed === spec) return { ...server, startupMs: median(times) };
    await server.stop();
    if (run >= startupRuns) return { ...(await startServer(spec)), startupMs: median(times) };
  }
}

interface Contender {
  server: RunningServer;
  target: Target | null;
}

if (values.peers) ensurePeersInstalled(log);
const docdb = workloads.some((workload) => workload.name.startsWith('docdb')) ? await startBenchDocdb(log) : null;
const ours = docdb ? withDocdb(OURS, docdb) : OURS;
const baseline = values.baseline ? await baselineSpec(values.baseline, log) : null;
const s3 = values['skip-s3'] ? null : await startTestS3('bench');
const specs = [ours, ...(s3 ? [oursOnS3(s3)] : []), ...(baseline ? [baseline] : []), CEILING, ...(values.peers ? [JSS, CSS] : [])];

const contenders: Contender[] = [];
let dpop: BenchDpop | null = null;
const stopAll = async () => {
  await Promise.all([...contenders.map((contender) => contender.server.stop()), dpop?.close(), docdb?.stop()]);
  await s3?.stop();
};
process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));

try {
  for (const spec of specs) {
    log(`starting ${spec.name} (${startupRuns}×, median time to first 200)`);
    const server = await startTimed(spec, spec === ours ? OURS : spec);
    contenders.push({ server, target: null });
    log(`${spec.name}: ready in ${server.startupMs.toFixed(0)} ms at ${server.base}`);
  }
  for (const contender of contenders) {
    const { spec } = contender.server;
    if (!spec.createOwner) continue;
    log(`${spec.name}: creating the owner's pod and seeding it (1 KB JSON-LD, Turtle, ${1000}-member container, ACLs)`);
    // Only svc gets the DPoP reader: its issuer is on loopback, which svc reaches with --allow-private-fetch.
    if (spec === ours) dpop = await startBenchDpop();
    contender.target = await seedPod(await spec.createOwner(contender.server.base), spec === ours ? dpop! : undefined);
    if (spec === ours && docdb) contender.target.docdb = await seedDocdb(contender.target.owner);
  }
  // svc's own builds: where in the run each one's peak RSS is made.
  const rssPhases = new Map(contenders.filter(({ server }) => server.spec === ours || server.spec === baseline).map(({ server }) => [server, new RssPhases(server.pid)]));
  const markPhase = async (server: RunningServer, phase: string) => (await rssPhases.get(server)?.mark(phase)) ?? '';
  for (const server of rssPhases.keys()) await markPhase(server, 'start and seeding');

  const runsFor = (contender: Contender) =>
    contender.target
      ? workloads.filter((workload) => !workload.runsOn || workload.runsOn(contender.target!)).map((workload) => ({ workload, target: contender.target! }))
      : workloads.includes(CEILING_WORKLOAD) ? [{ workload: CEILING_WORKLOAD, target: null }] : [];
  const measurements = new Map<string, Measurement[]>();
  const record = (server: string, workload: string, measurement: Measurement) => {
    const key = `${server}\u0000${workload}`;
    measurements.set(key, [...(measurements.get(key) ?? []), measurement]);
  };

  const renewTokens = async () => {
    for (const { target } of contenders) if (target?.owner.renew) target.owner.authorization = await target.owner.renew();
  };

  if (warmup > 0) {
    await renewTokens();
    log(`warming up (${warmup} s per workload and server, not recorded)`);
    for (const contender of contenders) {
      for (const { workload, target } of runsFor(contender)) await measure(contender.server.base, workload, target, { duration: warmup, connections: Math.min(8, workload.connections ?? connections) });
      await markPhase(contender.server, 'warm-up');
    }
  }
  for (let round = 1; round <= rounds; round++) {
    await renewTokens();
    // Alternate the order so no server always runs first (A B, then B A).
    const order = round % 2 === 1 ? contenders : [...contenders].reverse();
    for (const workload of workloads) {
      for (const contender of order) {
        const run = runsFor(contender).find((entry) => entry.workload === workload);
        if (!run) continue;
        const result = await measure(contender.server.base, workload, run.target, { duration, connections: workload.connections ?? connections, pid: contender.server.pid });
        record(contender.server.spec.name, workload.name, result);
        const cpu = result.cpuPerRequestUs === null ? '' : `  server CPU ${result.cpuPerRequestUs.toFixed(0)} µs/req`;
        const memory = await markPhase(contender.server, `round ${round}, ${workload.name}`);
        log(`round ${round}/${rounds} ${workload.name.padEnd(28)} ${contender.server.spec.name.padEnd(13)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms${cpu}${memory ? `  ${memory}` : ''}${result.failures ? `  FAILURES ${result.failures}` : ''}`);
      }
    }
  }

  const rows: WorkloadRow[] = [];
  for (const workload of [...workloads]) {
    for (const { server } of contenders) {
      const runs = measurements.get(`${server.spec.name}\u0000${workload.name}`);
      if (!runs) continue;
      rows.push({
        workload: workload.name,
        server: server.spec.name,
        requestsPerSecond: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0) / runs.length,
        p50: median(runs.map((run) => run.p50)),
        p99: Math.max(...runs.map((run) => run.p99)),
        failures: runs.reduce((sum, run) => sum + run.failures, 0),
        statuses: mergeStatuses(runs.flatMap((run) => run.unexpectedStatuses)),
        cpuPerRequestUs: runs.every((run) => run.cpuPerRequestUs !== null) ? median(runs.map((run) => run.cpuPerRequestUs!)) : null,
      });
    }
  }

  let scaling: ScalingRow[] = [];
  // svc's own (the working tree's and the baseline's): the peers' listings are not what this compares.
  const svcs = contenders.filter((contender) => (contender.server.spec === ours || contender.server.spec === baseline) && contender.target);
  if (!values['skip-scaling']) {
    scaling = await measureScaling(svcs.map(({ server, target }) => ({ name: server.spec.name, owner: target!.owner })), log);
    for (const { server } of svcs) log(`${server.spec.name} after the scaling run: ${await markPhase(server, 'scaling run')}`);
  }

  // Every Solid server stores a resource under its data directory at the URL's path (plus what it adds).
  const footprint: { server: string; bytes: number | null }[] = [];
  if (!values['skip-footprint']) {
    for (const { server, target } of contenders) {
      if (!target) continue;
      const container = `${target.owner.podUri}bench-private/extensionless/`;
      log(`${server.spec.name}: disk footprint of ${MEMBERS} small extension-less members`);
      await fillExtensionless(target.owner, container, MEMBERS);
      footprint.push({ server: server.spec.name, bytes: await diskUsage(join(server.dataDir, new URL(container).pathname)) });
      await markPhase(server, 'footprint');
    }
  }

  // Read after the scaling run and the footprint, so the peak is the whole run's (the hostile bodies and the
  // scale-out run in other processes).
  const servers: ServerReport[] = [];
  for (const contender of contenders) {
    const memory = await memoryOf(contender.server.pid);
    const peakRaisedBy = rssPhases.get(contender.server)?.raises();
    servers.push({ name: contender.server.spec.name, startupMs: contender.server.startupMs, peakRssMb: memory?.peakMb ?? null, rssAfterMb: memory?.currentMb ?? null, ...(peakRaisedBy ? { peakRaisedBy } : {}) });
  }

  // Last, after the load runs: the probe measures this process's own event loop, which nothing else uses now.
  let hostile: HostileResult[] = [];
  if (!values['skip-hostile']) {
    log('hostile bodies: how long each holds the event loop (in process, fs driver)');
    hostile = await runHostileChecks(log);
    if (hostile.some((result) => !result.ok)) process.exitCode = 1;
  }

  // After the main servers are measured, so the three instances do not compete with them.
  let scaleOut: ScaleOutRow[] = [];
  if (!values['skip-scale-out']) {
    log('scale-out: one instance against three sharing a redis-server');
    scaleOut = await runScaleOut({ duration, connections, log });
  }

  const report = markdownReport({ servers, rows, scaling, footprint, settings: { duration, connections, rounds } });
  const sections = [report, ...(hostile.length ? [hostileReport(hostile)] : []), ...(scaleOut.length ? [scaleOutReport(scaleOut)] : [])];
  console.log(sections.join('\n\n'));
  await mkdir(join(values.out, '..'), { recursive: true });
  await writeFile(values.out, JSON.stringify({ date: new Date().toISOString(), settings: { duration, connections, rounds }, servers, rows, scaling, footprint, hostile, scaleOut }, null, 2));
  log(`JSON results in ${values.out}`);
  // Peers fail under concurrent writes (see docs/benchmarks.md) and are reported as such; svc must not.
  const failed = rows.filter((row) => row.server === ours.name && row.failures > 0);
  if (failed.length > 0) {
    console.error(`\nBENCH FAILED: svc answered non-2xx or not at all:\n${failed.map((row) => `  ${row.workload}: ${row.failures} (${row.statuses.join(', ') || 'connection errors'})`).join('\n')}`);
    process.exitCode = 1;
  }
} finally {
  await stopAll();
}
