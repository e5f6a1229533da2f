/**
 * Instructions per request of one workload, counted by valgrind's callgrind around the server:
 * `node --import tsx bench/callgrind-get.ts [--workload "GET small (owner)"] [--ceiling] [--cli <dist/cli.js>]
 * [--warm 15000] [--count 5000] [--out <file>]`.
 *
 * Starts svc (or, with --ceiling, the bare Hono ceiling) under callgrind with collection off, seeds the
 * benchmark pod (no listed members: seeding under valgrind is slow), warms up with `--warm` requests, then
 * counts `--count` more (8 connections) and prints instructions ÷ count, in all and by thread. One profile
 * a thread stays in `<out>-NN` (`-01` the main thread) for `callgrind_annotate --inclusive=yes`, JavaScript
 * functions named from V8's perf map. Counts of one build agree within a few per cent between runs;
 * compare builds made the same way.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { CEILING, OURS, SVC_SCRIPT, startServer, type ServerSpec } from './servers.ts';
import { CEILING_WORKLOAD, seedPod, WORKLOADS } from './workloads.ts';

const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: CEILING_WORKLOAD.name },
    ceiling: { type: 'boolean', default: false },
    cli: { type: 'string' },
    warm: { type: 'string', default: '15000' },
    count: { type: 'string', default: '5000' },
    out: { type: 'string' },
  },
});
const workload = WORKLOADS.find((candidate) => candidate.name === values.workload);
if (!workload) throw new Error(`no workload named ${values.workload}; workloads: ${WORKLOADS.map((w) => w.name).join('; ')}`);
const out = values.out ?? join(import.meta.dirname, '..', '.bench', `callgrind.${values.ceiling ? 'ceiling' : 'svc'}.out`);
const base: ServerSpec = values.ceiling ? CEILING : OURS;
const spec: ServerSpec = {
  ...base,
  command: (port, dataDir) => {
    const command = base.command(port, dataDir);
    const args = values.cli ? command.args.map((arg) => (arg === SVC_SCRIPT ? values.cli! : arg)) : command.args;
    // --perf-basic-prof: V8 lists its compiled code in /tmp/perf-<pid>.map, which names the JIT code below.
    return { ...command, executable: 'valgrind', args: ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, command.executable, '--perf-basic-prof', ...args] };
  },
};

await mkdir(dirname(out), { recursive: true });
for (const name of await readdir(dirname(out))) if (name.startsWith(basename(out))) await rm(join(dirname(out), name));
const server = await startServer(spec);
try {
  const target = values.ceiling ? null : await seedPod(await OURS.createOwner!(server.base), undefined, 0);
  const url = target ? workload.url(target) : `${server.base}/`;
  const headers = target ? workload.headers(target) : {};
  const run = async (amount: number) => {
    const result = await autocannon({ url, method: workload.method, headers, connections: 8, amount, timeout: 60 });
    const failed = result.non2xx + result.errors + result.timeouts;
    if (failed) throw new Error(`${failed} of ${amount} requests failed`);
  };
  await run(Number(values.warm));
  execFileSync('callgrind_control', ['-i', 'on', String(server.pid)], { stdio: 'ignore' });
  await run(Number(values.count));
  execFileSync('callgrind_control', ['-i', 'off', String(server.pid)], { stdio: 'ignore' });
} finally {
  await server.stop();
}
/**
 * Callgrind names JIT code by address only: each such name becomes the JavaScript function whose code held
 * that address (the last one V8 put there), as /tmp/perf-<pid>.map lists them.
 */
async function nameJitCode(profile: string, pid: number): Promise<string> {
  const mapFile = `/tmp/perf-${pid}.map`;
  const entries = (await readFile(mapFile, 'utf8').catch(() => ''))
    .split('\n')
    .map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ start: parseInt(match[1]!, 16), end: parseInt(match[1]!, 16) + parseInt(match[2]!, 16), name: match[3]! }));
  const nameOf = (address: number) => {
    for (let index = entries.length - 1; index >= 0; index--) {
      const entry = entries[index]!;
      if (address >= entry.start && address < entry.end) return entry.name;
    }
    return null;
  };
  return profile.replace(/^(c?fn=\(\d+\)) 0x([0-9a-f]+)$/gm, (line, head: string, hex: string) => {
    const name = nameOf(parseInt(hex, 16));
    return name ? `${head} ${name.replace(/\s+/g, '_')}` : line;
  });
}

// One profile a thread (--separate-threads): `<out>-01` is the main thread, the others V8's and libuv's helpers.
const threadFiles = (await readdir(dirname(out))).filter((name) => name.startsWith(`${basename(out)}-`)).sort();
const counts: string[] = [];
let all = 0;
for (const name of threadFiles) {
  const file = join(dirname(out), name);
  const profile = await nameJitCode(await readFile(file, 'utf8'), server.pid);
  await writeFile(file, profile);
  const total = [...profile.matchAll(/^totals:\s+(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0) / Number(values.count);
  all += total;
  if (total >= 1) counts.push(`${name.slice(basename(out).length + 1)} ${Math.round(total).toLocaleString('en')}`);
}
await rm(`/tmp/perf-${server.pid}.map`, { force: true });
console.log(`${values.ceiling ? 'ceiling' : workload.name}: ${Math.round(all).toLocaleString('en')} instructions a request; by thread ${counts.join(', ')} (${out}-*)`);
