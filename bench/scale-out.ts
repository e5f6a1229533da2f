/**
 * Scale-out (issue 22): throughput of one svc instance against three on one data directory sharing a
 * redis-server (`--redis-url`), the load spread evenly over the three as a round-robin balancer would.
 * Run by `npm run bench` (skip with --skip-scale-out) and alone by `npm run bench:scale-out`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, type Measurement } from './load.ts';
import { freePort, OURS, startServer, type RunningServer, type ServerSpec } from './servers.ts';
import { seedPod, WORKLOADS, type Target, type Workload } from './workloads.ts';

/** Reads and writes: what a balancer spreads, and what the shared state costs on each. */
const MEASURED = ['GET small (owner)', 'PUT overwrite', 'PATCH INSERT DATA'];

export interface ScaleOutRow {
  workload: string;
  setup: string;
  requestsPerSecond: number;
  p99: number;
  failures: number;
}

interface Redis {
  url: string;
  stop(): Promise<void>;
}

async function startRedis(): Promise<Redis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('error', (error) => reject(new Error(`redis-server could not be run (scripts/setup-system.sh installs it): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** svc as the main benchmark runs it, on a data directory shared by every instance of the setup. */
function instanceSpec(dataDir: string, redisUrl: string | null): ServerSpec {
  return {
    ...OURS,
    command: (port) => {
      const base = OURS.command(port, dataDir);
      return { ...base, args: [...base.args, ...(redisUrl ? ['--redis-url', redisUrl] : [])] };
    },
  };
}

/** The same target on another instance: same pod, same token, another origin. */
function retarget(target: Target, from: string, to: string): Target {
  const moved = (url: string) => to + url.slice(from.length);
  return { ...target, small: moved(target.small), publicSmall: moved(target.publicSmall), container: moved(target.container), put: moved(target.put), posts: moved(target.posts), patch: moved(target.patch) };
}

/** Load spread over the instances, `connections` in all; requests per second summed, the worst p99 kept. */
async function measureSpread(instances: RunningServer[], targets: Target[], workload: Workload, duration: number, connections: number): Promise<Measurement> {
  const share = Math.max(1, Math.round(connections / instances.length));
  const results = await Promise.all(instances.map((instance, i) => measure(instance.base, workload, targets[i]!, { duration, connections: share })));
  return {
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    p50: Math.max(...results.map((result) => result.p50)),
    p99: Math.max(...results.map((result) => result.p99)),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    unexpectedStatuses: results.flatMap((result) => result.unexpectedStatuses),
    cpuPerRequestUs: null,
  };
}

export async function runScaleOut(options: { duration: number; connections: number; log(line: string): void }): Promise<ScaleOutRow[]> {
  const workloads = WORKLOADS.filter((workload) => MEASURED.includes(workload.name));
  const setups = [
    { name: 'one instance', count: 1, redis: false },
    { name: 'one instance, --redis-url', count: 1, redis: true },
    { name: 'three instances, --redis-url', count: 3, redis: true },
  ];
  const rows: ScaleOutRow[] = [];
  for (const setup of setups) {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-scale-out-'));
    const redis = setup.redis ? await startRedis() : null;
    const instances: RunningServer[] = [];
    try {
      for (let i = 0; i < setup.count; i++) instances.push(await startServer(instanceSpec(dataDir, redis?.url ?? null)));
      const first = instances[0]!;
      const target = await seedPod(await OURS.createOwner!(first.base));
      const targets = instances.map((instance) => retarget(target, first.base, instance.base));
      for (const workload of workloads) {
        await measureSpread(instances, targets, workload, 1, Math.min(8, options.connections));
        const result = await measureSpread(instances, targets, workload, options.duration, options.connections);
        rows.push({ workload: workload.name, setup: setup.name, requestsPerSecond: result.requestsPerSecond, p99: result.p99, failures: result.failures });
        options.log(`scale-out ${workload.name.padEnd(20)} ${setup.name.padEnd(30)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${result.p99.toFixed(1)} ms${result.failures ? `  FAILURES ${result.failures} (${result.unexpectedStatuses.join(', ')})` : ''}`);
      }
    } finally {
      for (const instance of instances) await instance.stop();
      await redis?.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

/** The Markdown table: each setup's throughput and its ratio to one instance without Redis. */
export function scaleOutReport(rows: ScaleOutRow[]): string {
  const lines = ['| workload | setup | req/s | vs one instance | p99 ms | failures |', '|---|---|---:|---:|---:|---:|'];
  for (const row of rows) {
    const single = rows.find((other) => other.workload === row.workload && other.setup === 'one instance')!;
    lines.push(`| ${row.workload} | ${row.setup} | ${row.requestsPerSecond.toFixed(0)} | ${(row.requestsPerSecond / single.requestsPerSecond).toFixed(2)}× | ${row.p99.toFixed(1)} | ${row.failures} |`);
  }
  return lines.join('\n');
}
