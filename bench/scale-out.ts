/**
 * Scale-out (issue 22): throughput of one svc instance against three on one data directory sharing a
 * redis-server (`--redis-url`), behind a round-robin balancer in the bench's own process.
 * Run by `npm run bench` (skip with --skip-scale-out) and alone by `npm run bench:scale-out`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { measure } from './load.ts';
import { freePort, OURS, startServer, type RunningServer, type ServerSpec } from './servers.ts';
import { seedPod, WORKLOADS } from './workloads.ts';

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

/**
 * The load balancer: round robin over the instances, keep-alive to each, the client's Host passed on. Every
 * setup runs behind it (one backend for one instance), so its cost is in every figure alike.
 */
async function startBalancer(port: number, backends: () => RunningServer[]): Promise<{ stop(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = createServer((request, response) => {
    const list = backends();
    const backend = new URL(list[next++ % list.length]!.base);
    const forwarded = httpRequest({ host: backend.hostname, port: backend.port, method: request.method, path: request.url, headers: request.headers, agent }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forwarded.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** svc as the main benchmark runs it, on a data directory shared by every instance, at the balancer's origin. */
function instanceSpec(dataDir: string, publicBase: string, redisUrl: string | null): ServerSpec {
  return {
    ...OURS,
    command: (port) => {
      const base = OURS.command(port, dataDir);
      return { ...base, args: [...base.args, '--base-url', publicBase, ...(redisUrl ? ['--redis-url', redisUrl] : [])] };
    },
    // Its own address is not the public origin (421): ready once it answers at all.
    readyOnAnyAnswer: true,
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
    const balancerPort = await freePort();
    const publicBase = `http://127.0.0.1:${balancerPort}`;
    const balancer = await startBalancer(balancerPort, () => instances);
    try {
      for (let i = 0; i < setup.count; i++) instances.push(await startServer(instanceSpec(dataDir, publicBase, redis?.url ?? null)));
      const target = await seedPod(await OURS.createOwner!(publicBase));
      for (const workload of workloads) {
        await measure(publicBase, workload, target, { duration: 1, connections: Math.min(8, options.connections) });
        const result = await measure(publicBase, workload, target, { duration: options.duration, connections: options.connections });
        rows.push({ workload: workload.name, setup: setup.name, requestsPerSecond: result.requestsPerSecond, p99: result.p99, failures: result.failures });
        options.log(`scale-out ${workload.name.padEnd(20)} ${setup.name.padEnd(30)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${result.p99.toFixed(1)} ms${result.failures ? `  FAILURES ${result.failures} (${result.unexpectedStatuses.join(', ')})` : ''}`);
      }
    } finally {
      await balancer.stop();
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
