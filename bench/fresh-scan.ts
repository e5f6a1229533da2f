/**
 * Where a fresh listing's time goes: `npm run bench:scan [-- --rounds 30 --dir <data dir>]`.
 *
 * In one process, as `svc start` runs (its heap policy), fills a 1,000- and a 10,000-member container through
 * the fs driver (as the scaling run of `npm run bench` does), then lists each right after a file in it was
 * replaced outside svc (written beside it and renamed over it, as editors and git do): a fresh directory scan
 * (the driver looks at the directory on every listing here, `revalidateAfterMs` 0), then the Turtle body made
 * again, alternating the two. A write through svc would not do: the driver puts what it wrote into its cached
 * listing, with no scan. Per listing it reads the wall time, the process's user and system CPU (system is
 * mostly the kernel's lstat of each member) and the time V8 spent collecting garbage meanwhile; then, as the
 * floor no scan can go below, the same directory's names read and each lstat'ed in a bare loop (readdir and
 * lstatSync with bigint times, the calls the driver makes); last the listing after a write through svc (no scan:
 * the driver's cached listing with the member written in it, and the body made from the previous one, as the
 * server's cache of bodies makes it). It prints medians. `--dir` keeps the filled
 * directory for the next run (profiles: `node --cpu-prof --import tsx bench/fresh-scan.ts`).
 */
import { lstatSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { positiveCount } from './args.ts';
import { applyHeapPolicy } from '../runtimes/node/heap.ts';
import { FsDriver } from '../storage-drivers/fs.ts';
import { ListingBodies, listingTurtleBytes, readListing, turtleBodies } from '../src/ldp/listing.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '30' }, dir: { type: 'string' } } });
const rounds = positiveCount('rounds', values.rounds);
applyHeapPolicy(process.execArgv, process.env.NODE_OPTIONS);

const root = values.dir ?? (await mkdtemp(join(tmpdir(), 'svc-fresh-scan-')));
const storage = await FsDriver.open(root, { recover: true, revalidateAfterMs: 0 });
const body = JSON.stringify({ '@context': { schema: 'http://schema.org/' }, '@id': '#it', 'schema:name': 'posted' });
const containers = [[1000, '/scale-1k/'], [10_000, '/scale-10k/']] as const;
for (const [members, container] of containers) {
  if ((await storage.head(container))?.isContainer) continue;
  for (let index = 0; index < members; index++) await storage.put(`${container}m${String(index).padStart(5, '0')}.json`, body, { contentType: 'application/ld+json' });
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

interface Sample {
  wall: number;
  /** The directory scan (names, each member's lstat, the members sorted by path), the visible members, the Turtle body made. */
  scan: number;
  sort: number;
  body: number;
  user: number;
  system: number;
  gc: number;
  /** The bare loop: readdir, then lstatSync of each name. */
  floor: number;
  floorUser: number;
  floorSystem: number;
  /** The listing after a write through svc: the cached listing updated in place, then the body. */
  afterSvcWrite: number;
}
const samples = new Map<number, Sample[]>(containers.map(([members]) => [members, []]));
const origin = 'http://localhost:3000';
// As the server keeps them: the body after a write through svc is made from the previous one.
const bodies = new ListingBodies(5 * 1024 * 1024);
for (let round = 0; round < rounds; round++) {
  for (const [members, container] of containers) {
    const directory = join(root, container);
    await writeFile(join(directory, 'touched.json.edit'), `{"round":${round}}`);
    await rename(join(directory, 'touched.json.edit'), join(directory, 'touched.json'));
    // The write's own garbage and GC are not the listing's.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const gcBefore = gcMs;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const meta = (await storage.head(container))!;
    await storage.children(container);
    const scanned = performance.now();
    const listing = await readListing(storage, meta);
    const sorted = performance.now();
    const bytes = listingTurtleBytes(listing, (path) => origin + path);
    const ended = performance.now();
    const used = process.cpuUsage(cpu);
    // GC entries are reported a turn later.
    await new Promise((resolve) => setImmediate(resolve));
    if (bytes.byteLength === 0) throw new Error('empty listing');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const floorCpu = process.cpuUsage();
    const floorStarted = performance.now();
    const found = await bareScan(directory);
    const floor = performance.now() - floorStarted;
    const floorUsed = process.cpuUsage(floorCpu);
    if (found < members) throw new Error(`the bare loop found ${found} of ${members} members`);
    await storage.put(`${container}touched.json`, '{}', { contentType: 'application/ld+json' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const svcStarted = performance.now();
    const svcListing = await readListing(storage, (await storage.head(container))!);
    const svcBytes = await bodies.body(svcListing, container, turtleBodies((path) => origin + path, svcListing.members.length));
    const afterSvcWrite = performance.now() - svcStarted;
    if (svcBytes.byteLength === 0) throw new Error('empty listing');
    samples.get(members)!.push({ afterSvcWrite,  wall: ended - started, scan: scanned - started, sort: sorted - scanned, body: ended - sorted, user: used.user / 1000, system: used.system / 1000, gc: gcMs - gcBefore, floor, floorUser: floorUsed.user / 1000, floorSystem: floorUsed.system / 1000 });
  }
}

/** The floor: the names, then an lstat of each, and nothing kept; how many were there. */
async function bareScan(directory: string): Promise<number> {
  let found = 0;
  for (const name of await readdir(directory)) if (lstatSync(directory + name, { bigint: true, throwIfNoEntry: false })) found++;
  return found;
}

const summary = new Map<number, Sample>();
for (const [members, list] of samples) {
  const row = Object.fromEntries(Object.keys(list[0]!).map((key) => [key, median(list.map((sample) => sample[key as keyof Sample]))])) as unknown as Sample;
  summary.set(members, row);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`${String(members).padStart(6)} members: wall ${ms(row.wall)} (scan ${ms(row.scan)}, sort ${ms(row.sort)}, body ${ms(row.body)}), CPU user ${ms(row.user)}, system ${ms(row.system)}, GC ${ms(row.gc)}; bare readdir+lstat ${ms(row.floor)} (user ${ms(row.floorUser)}, system ${ms(row.floorSystem)}); after a write through svc ${ms(row.afterSvcWrite)} (medians of ${list.length})`);
}
const [small, large] = [summary.get(1000)!, summary.get(10_000)!];
// The system CPU of a 1,000-member listing is often below the clock's tick: no ratio then.
const ratio = (key: keyof Sample) => `${key} ${small[key] > 0 ? `${(large[key] / small[key]).toFixed(1)}×` : '–'}`;
console.log(`10,000 / 1,000: ${(['wall', 'scan', 'sort', 'body', 'user', 'system', 'gc'] as const).map(ratio).join(', ')}; bare readdir+lstat: ${(['floor', 'floorUser', 'floorSystem'] as const).map(ratio).join(', ')}; after a write through svc ${(large.afterSvcWrite / small.afterSvcWrite).toFixed(1)}×`);
if (!values.dir) await rm(root, { recursive: true, force: true });
