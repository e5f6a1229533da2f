/**
 * What the fs driver's small writes cost in-process (no HTTP, no load generator):
 *
 *   npm run bench:fs [-- --writes 300 --rounds 8]
 *
 * Two drivers on fresh directories under the system temp directory, one allowed blocking calls for small
 * writes (the default, storage-drivers/fs-blocking.ts) and one asynchronous only, take turns: per round each
 * overwrites one 1 KB JSON-LD file `--writes` times (a `.json` name, so its type needs a sidecar) and creates
 * as many new extension-less files create-only (as POST does). Medians of the process CPU time (user +
 * system, which includes the thread pool's) per write are printed with each round's figure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FsDriver } from '../storage-drivers/fs.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { writes: { type: 'string', default: '300' }, rounds: { type: 'string', default: '8' } } });
const WRITES = Number(values.writes);
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(WRITES) || WRITES < 10 || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`--writes must be a whole number of at least 10 and --rounds at least 1, not ${values.writes} and ${values.rounds}`);
  process.exit(2);
}

const BODY = JSON.stringify({ '@context': { name: 'http://schema.org/name' }, '@id': '#it', name: 'x'.repeat(900) });
const TYPE = 'application/ld+json';
const roots: string[] = [];
async function driver(blockingCalls: boolean): Promise<FsDriver> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-fs-'));
  roots.push(root);
  return FsDriver.open(root, { blockingCalls });
}

/** Process CPU microseconds per call of `write`, split into user and system time. */
async function cpuPerWrite(write: (index: number) => Promise<unknown>): Promise<{ user: number; system: number }> {
  const before = process.cpuUsage();
  for (let index = 0; index < WRITES; index++) await write(index);
  const spent = process.cpuUsage(before);
  return { user: spent.user / WRITES, system: spent.system / WRITES };
}

const drivers = { 'blocking calls': await driver(true), 'asynchronous only': await driver(false) };
const results = new Map<string, { user: number; system: number }[]>();
const record = (name: string, figure: { user: number; system: number }) => results.set(name, [...(results.get(name) ?? []), figure]);
let created = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which driver goes first, so neither always runs after the other's writes.
    const order = round % 2 === 0 ? Object.entries(drivers) : Object.entries(drivers).reverse();
    for (const [name, fs] of order) {
      record(`overwrite, ${name}`, await cpuPerWrite(() => fs.put('/pod/put.json', BODY, { contentType: TYPE })));
      record(`create, ${name}`, await cpuPerWrite(() => fs.put(`/pod/posts/m${created++}`, BODY, { contentType: TYPE, ifNoneMatch: '*' })));
    }
  }
} finally {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
}

console.log(`fs driver, ${WRITES} writes of ${BODY.length} bytes per round and kind, ${ROUNDS} rounds: process CPU per write (median)`);
for (const name of [...results.keys()].sort()) {
  const figures = results.get(name)!;
  const total = figures.map((figure) => figure.user + figure.system);
  console.log(
    `  ${name.padEnd(30)} ${median(total).toFixed(0).padStart(5)} µs  (user ${median(figures.map((f) => f.user)).toFixed(0)}, system ${median(figures.map((f) => f.system)).toFixed(0)})  rounds: ${total.map((value) => value.toFixed(0)).join(' ')}`,
  );
}
