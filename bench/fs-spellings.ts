/**
 * What holding names to their spelling on disk costs the fs driver, in-process (no HTTP):
 *
 *   npm run bench:spellings [-- --ops 2000 --rounds 6]
 *
 * Drivers take turns on the same work: a case-sensitive temp directory as svc opens it (the probe finds no
 * folding: no checks), the same with the checks forced on, and, where FUSE and fusepy are there, the
 * case-insensitive view of test/support/casefold_fs.py with the checks (as svc opens it) and without them
 * (the unsafe behaviour before, for the cost only). Work per round: `head` of one file in a three-level path
 * (served from the driver's cache), `get` of it with the cache revalidating every read, and creating new files
 * create-only. Medians of the process's CPU microseconds per call (the FUSE daemon's own time is not in them). Also timed: the startup probe, and folding a path
 * the way approach (b) of docs/decisions.md ("Names on disks that fold them") would on every request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FsDriver } from '../storage-drivers/fs.ts';
import type { FsOptions } from '../storage-drivers/fs-options.ts';
import { foldedPath, probeFolding } from '../storage-drivers/fs-spellings.ts';
import { caseFoldingUnavailable, mountCaseFoldingView, type CaseFoldingView } from '../test/support/casefold-mount.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { ops: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '6' } } });
const OPS = Number(values.ops);
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(OPS) || OPS < 10 || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`--ops must be a whole number of at least 10 and --rounds at least 1, not ${values.ops} and ${values.rounds}`);
  process.exit(2);
}

const FILE = '/alice/notes/doc.json';
const BODY = JSON.stringify({ '@id': '#it', name: 'x'.repeat(900) });
const TYPE = 'application/ld+json';
const roots: string[] = [];
let view: CaseFoldingView | null = null;

async function open(parent: string, options: FsOptions): Promise<FsDriver> {
  const root = await mkdtemp(join(parent, 'svc-bench-spellings-'));
  roots.push(root);
  const driver = await FsDriver.open(root, options);
  await driver.put(FILE, BODY, { contentType: TYPE });
  return driver;
}

/** This process's CPU microseconds (user + system, the thread pool's included) per call: less swayed than wall time by other load. */
async function microsPerCall(call: (index: number) => Promise<unknown>, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) await call(index);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / count;
}

try {
  const drivers: Record<string, { hot: FsDriver; cold: FsDriver }> = {
    'case-sensitive, as opened (no checks)': { hot: await open(tmpdir(), {}), cold: await open(tmpdir(), { revalidateAfterMs: 0 }) },
    'case-sensitive, checks forced on': { hot: await open(tmpdir(), { foldsNames: true }), cold: await open(tmpdir(), { foldsNames: true, revalidateAfterMs: 0 }) },
  };
  const unavailable = caseFoldingUnavailable();
  if (unavailable) console.log(`(no case-insensitive view: ${unavailable})`);
  else {
    view = await mountCaseFoldingView();
    drivers['case-insensitive view, as opened (checks)'] = { hot: await open(view.path, {}), cold: await open(view.path, { revalidateAfterMs: 0 }) };
    drivers['case-insensitive view, no checks (unsafe)'] = { hot: await open(view.path, { foldsNames: false }), cold: await open(view.path, { foldsNames: false, revalidateAfterMs: 0 }) };
  }
  const figures = new Map<string, number[]>();
  const record = (name: string, figure: number) => figures.set(name, [...(figures.get(name) ?? []), figure]);
  let created = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.entries(drivers) : Object.entries(drivers).reverse();
    for (const [name, { hot, cold }] of order) {
      // The FUSE view answers each system call through Python: fewer calls there keep the run short.
      const count = name.startsWith('case-insensitive') ? Math.max(10, OPS >> 4) : OPS;
      record(`head (cached), ${name}`, await microsPerCall(() => hot.head(FILE), count));
      record(`get (revalidated), ${name}`, await microsPerCall(async () => (await cold.get(FILE))?.body.cancel(), count));
      record(`create, ${name}`, await microsPerCall(() => hot.put(`/alice/posts/m${created++}`, BODY, { contentType: TYPE, ifNoneMatch: '*' }), Math.max(10, count >> 2)));
    }
  }
  for (const [name, list] of figures) console.log(`${name.padEnd(64)} ${median(list).toFixed(2).padStart(10)} µs  (rounds: ${list.map((f) => f.toFixed(1)).join(' ')})`);

  const probes: number[] = [];
  for (let i = 0; i < 20; i++) probes.push(await microsPerCall(() => probeFolding(roots[0]!), 1));
  console.log(`${'startup probe, case-sensitive temp directory'.padEnd(64)} ${median(probes).toFixed(2).padStart(10)} µs`);
  // The probe waits on the disk more than it computes: wall time too.
  const started = performance.now();
  for (let i = 0; i < 20; i++) await probeFolding(roots[0]!);
  console.log(`${'startup probe, case-sensitive temp directory (wall)'.padEnd(64)} ${(((performance.now() - started) * 1000) / 20).toFixed(2).padStart(10)} µs`);
  if (view) {
    const viewProbes: number[] = [];
    for (let i = 0; i < 5; i++) viewProbes.push(await microsPerCall(() => probeFolding(view!.path), 1));
    console.log(`${'startup probe, case-insensitive view'.padEnd(64)} ${median(viewProbes).toFixed(2).padStart(10)} µs`);
  }
  for (const path of ['/alice/notes/doc.json', '/alice/Photos/IMG_0001.JPG', '/alice/Notizen/Übersicht.ttl']) {
    const folds = await microsPerCall(async () => foldedPath(path), 100_000);
    console.log(`${`fold a path per request, approach (b): ${path}`.padEnd(64)} ${folds.toFixed(3).padStart(10)} µs`);
  }
} finally {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  await view?.close();
}
