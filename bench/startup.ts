/**
 * Time to the first answer: `npm run bench:startup [-- --runs 11 --cli <dist/cli.js of a build> --callgrind]`.
 *
 * Starts `svc start` as `npm run bench` does (its flags, a fresh data directory) `--runs` times, asks for `/`
 * until it answers, and prints the medians of what bench/first-answer.mjs, preloaded, saw at the end of that
 * first answer: the time since the process started, and its CPU time. Both grow with the machine's load.
 * `--cli` starts another build (a baseline's .bench/baseline/<commit>/dist/cli.js) with the flags it knows and
 * Node's defaults. `--callgrind` runs it once under valgrind's callgrind instead and prints the instructions executed from
 * spawn to the first answer, which the load does not change (run it on a machine with valgrind). A start that is
 * not measured comes first, so the starts measured find V8's code cache it wrote (runtimes/node/code-cache.ts).
 * It also times Node's own floor the same way: a bare node:http server answering its first request (with
 * NODE_EXTRA_CA_CERTS set, Node parses those certificates at every start, before any JavaScript runs).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { positiveCount } from './args.ts';
import { flagsOf, knownArgs } from './baseline.ts';
import { freePort, OURS, SVC_SCRIPT } from './servers.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '11' }, cli: { type: 'string' }, callgrind: { type: 'boolean', default: false } } });
const runs = positiveCount('runs', values.runs);
const preload = join(import.meta.dirname, 'first-answer.mjs');
// Another build gets only the flags it knows (as a --baseline does) and Node's defaults.
const known = values.cli ? flagsOf(values.cli) : null;

/** Node's floor: a bare node:http server, its port as the script's first argument. */
const FLOOR = `require('node:http').createServer((request, response) => response.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')`;

/**
 * One start. `warmUp`: a start not measured, asked twice, which leaves what a start writes for the next (V8's
 * code cache beside the bundle, written after the first answer and so before the second), as the first start
 * after an install does.
 */
async function once(wrap: string[], { floor = false, warmUp = false } = {}): Promise<{ wallMs: number; cpuMs: number }> {
  const counted = values.callgrind && !warmUp;
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-startup-'));
  const port = await freePort();
  let args = OURS.command(port, dataDir).args;
  if (values.cli) args = [values.cli, ...knownArgs(args.slice(args.indexOf(SVC_SCRIPT) + 1), known!).args];
  if (floor) args = ['-e', FLOOR, String(port)];
  const [command, ...rest] = [...wrap, process.execPath, '--import', preload, ...args];
  const child = spawn(command!, rest, { env: { ...process.env, BENCH_EXIT_AFTER_FIRST_ANSWER: counted ? '1' : '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${port}/`).then((response) => (void response.body?.cancel(), true), () => false);
    if (answered || child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // The answer can reach us before the process has written its line: wait for the line, then stop it.
  while (!counted && !stderr.includes('svc-first-answer') && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 5));
  if (warmUp) await fetch(`http://127.0.0.1:${port}/`).then((response) => response.arrayBuffer());
  if (!counted) child.kill('SIGTERM');
  await exited;
  await rm(dataDir, { recursive: true, force: true });
  if (counted) {
    const collected = /Collected : ([\d,]+)/.exec(stderr)?.[1];
    if (!collected) throw new Error(`callgrind printed no total:\n${stderr}`);
    console.log(`instructions from spawn to the first answer: ${(Number(collected.replace(/,/g, '')) / 1e6).toFixed(0)} M`);
    process.exit(0);
  }
  const match = /^svc-first-answer (\S+) (\S+)$/m.exec(stderr);
  if (!match) throw new Error(`svc gave no first answer:\n${stderr}`);
  return { wallMs: Number(match[1]), cpuMs: Number(match[2]) };
}

await once([], { warmUp: true });
if (values.callgrind) {
  execFileSync('valgrind', ['--version']);
  await once(['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null']);
}
// Interleaved, so both see the same load.
const results: { wallMs: number; cpuMs: number }[] = [];
const floors: { wallMs: number; cpuMs: number }[] = [];
for (let run = 0; run < runs; run++) {
  results.push(await once([]));
  floors.push(await once([], { floor: true }));
}
const summary = (measured: { wallMs: number; cpuMs: number }[]) => `${median(measured.map((r) => r.wallMs)).toFixed(0)} ms (median; since the process started), CPU ${median(measured.map((r) => r.cpuMs)).toFixed(0)} ms`;
console.log(`${values.cli ?? 'svc'}: ${runs} starts, to the end of the first answer: ${summary(results)}`);
console.log(`Node's floor (a bare node:http server${process.env.NODE_EXTRA_CA_CERTS ? ', NODE_EXTRA_CA_CERTS set' : ''}): ${summary(floors)}`);
