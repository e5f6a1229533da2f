/**
 * What each byte-weighed cache on a request's path really keeps alive, against the weight it accounts for it:
 * `npm run bench:cache-weights [-- --entries 6000 --json]`
 * (`node --expose-gc --import tsx bench/cache-weights.ts`).
 *
 * For each cache an in-process app over the fs driver (not --public, one pod, its owner's requests) is filled
 * through real requests by a workload that fills mostly that cache, with the benchmark's bodies and paths
 * (bench/workloads.ts) and a few larger ones. Then every other cache is emptied and the heap measured
 * (heapUsed + external, after several full collections), then that cache is emptied and the heap measured
 * again: the difference is what its entries alone keep alive, compared with its accounted weight
 * (`BoundedCache.weight`). The caches are found by watching `BoundedCache.prototype.set`, named by who calls it.
 * The budget is large enough that nothing is evicted while filling.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { BoundedCache } from '../src/storage/bounded-cache.ts';
import { FsDriver } from '../storage-drivers/fs.ts';
import { positiveCount } from './args.ts';
import { MEMBERS, POST_BODY, restrictedAcl, SMALL_JSON_LD } from './workloads.ts';

const CACHES = ['fs file bodies', 'fs sidecar types', 'fs listings', 'listing bodies', 'conversions', 'ACL documents', 'WAC decisions'] as const;
type CacheName = (typeof CACHES)[number];

const { values } = parseArgs({ options: { entries: { type: 'string', default: '6000' }, json: { type: 'boolean', default: false }, only: { type: 'string' } } });
/** `--only a,b`: the workloads whose "cache: workload" contains one of these. */
const ONLY = values.only?.split(',');
const ENTRIES = positiveCount('entries', values.entries);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
// Code not run for a while loses its bytecode at a collection: that would be counted as freed with a cache.
setFlagsFromString('--no-flush-bytecode');

const BASE = 'http://127.0.0.1:8443';
/** Big enough that no cache evicts while filling (the weights are compared, not the bound). */
const CACHE_BYTES = 2 * 1024 * 1024 * 1024;
/** A reader besides the owner, as the bench's private container has its DPoP reader. */
const READER = 'https://reader.example/profile/card#me';
const TEXT_16KB = 'sixteen kilobytes of text, in a file a text/plain PUT streams to the disk. '.repeat(220);

// Every BoundedCache is named by the caller of its first `set`; its entries are counted as they come and go.
type AnyCache = BoundedCache<unknown, unknown>;
const named = new Map<AnyCache, CacheName | null>();
const sizes = new WeakMap<AnyCache, number>();
const prototype = BoundedCache.prototype as AnyCache;
const { set, delete: remove, clear } = prototype;
prototype.set = function (this: AnyCache, key: unknown, value: unknown) {
  if (!named.has(this)) named.set(this, nameOf(new Error().stack ?? ''));
  // `set` first deletes the key (counted below), then adds it unless it is too heavy.
  set.call(this, key, value);
  sizes.set(this, (sizes.get(this) ?? 0) + Number(this.peek(key) !== undefined));
};
prototype.delete = function (this: AnyCache, key: unknown) {
  if (this.peek(key) !== undefined) sizes.set(this, (sizes.get(this) ?? 0) - 1);
  remove.call(this, key);
};
prototype.clear = function (this: AnyCache) {
  sizes.set(this, 0);
  clear.call(this);
};

function nameOf(stack: string): CacheName | null {
  const caller = stack.split('\n')[2] ?? '';
  if (caller.includes('/storage-drivers/fs-file-cache.ts')) return caller.includes('rememberSidecar') ? 'fs sidecar types' : 'fs file bodies';
  if (caller.includes('/storage-drivers/fs-listing-cache.ts')) return 'fs listings';
  if (caller.includes('/src/ldp/listing.ts')) return 'listing bodies';
  if (caller.includes('/src/ldp/get.ts')) return 'conversions';
  if (caller.includes('/src/wac/acl-cache.ts')) return 'ACL documents';
  if (caller.includes('/src/wac/web-access-control.ts')) return 'WAC decisions';
  return null;
}

interface World {
  /** A request as the pod's owner, checked for a 2xx. */
  request(path: string, init?: RequestInit): Promise<void>;
  /** Writes a file into the data directory, as a server started on existing data finds it (the caches know nothing of it). */
  seed(path: string, body: string): void;
}

async function openWorld(root: string): Promise<World> {
  const storage = await FsDriver.open(root, { cacheBytes: CACHE_BYTES });
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false, public: false, conneg: true, cacheSize: CACHE_BYTES, baseUrl: BASE } });
  const app = createApp(config, { runtime: 'test', storage, log: () => undefined });
  const response = await app.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) }));
  if (response.status !== 201) throw new Error(`pod: ${response.status} ${await response.text()}`);
  const authorization = `Bearer ${((await response.json()) as { token: string }).token}`;
  return {
    seed(path, body) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), body);
    },
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('authorization', authorization);
      const response = await app.fetch(new Request(BASE + path, { ...init, headers }));
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status}`);
    },
  };
}

const put = (contentType: string, body: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': contentType }, body });
const accept = (type: string): RequestInit => ({ headers: { accept: type } });
const padded = (index: number) => String(index).padStart(5, '0');

function containersOf(world: World, count: number): string[] {
  const containers: string[] = [];
  for (let c = 0; c < count; c++) {
    const container = `/bench/bench-private/members${c}/`;
    for (let i = 0; i < MEMBERS; i++) world.seed(`${container}m${padded(i)}.json`, POST_BODY);
    containers.push(container);
  }
  return containers;
}

function seedDocs(world: World, count: number, body: string, name = (i: number) => `/bench/bench-private/docs/d${padded(i)}`): string[] {
  const paths = Array.from({ length: count }, (_, i) => name(i));
  for (const path of paths) world.seed(path, body);
  return paths;
}

interface Scenario {
  cache: CacheName;
  workload: string;
  fill(world: World): Promise<void>;
}

/** Enough members (megabytes) that what a collection leaves varies little against them. */
const containerCount = Math.max(8, Math.round(ENTRIES / 500));
/**
 * Reads of files as the benchmark's POST create leaves them (a new file's write leaves the caches alone): they
 * fill the file bodies and the sidecar types (none) alike.
 */
async function readPosted(world: World): Promise<void> {
  for (const path of seedDocs(world, ENTRIES, POST_BODY, () => `/bench/bench-private/posts/${crypto.randomUUID()}`)) await world.request(path);
}

const SCENARIOS: Scenario[] = [
  {
    cache: 'fs file bodies',
    workload: 'GET ~90 B JSON-LD, as POSTed',
    fill: readPosted,
  },
  {
    cache: 'fs file bodies',
    workload: 'PUT 1 KB JSON-LD over a file',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 2, SMALL_JSON_LD)) await world.request(path, put('application/ld+json', SMALL_JSON_LD));
    },
  },
  {
    cache: 'fs file bodies',
    workload: 'GET 1 KB read from disk',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 2, SMALL_JSON_LD)) await world.request(path);
    },
  },
  {
    cache: 'fs file bodies',
    workload: 'PUT text over a file (metadata only)',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 2, TEXT_16KB, (i) => `/bench/bench-private/texts/t${padded(i)}.txt`)) await world.request(path, put('text/plain', TEXT_16KB));
    },
  },
  {
    cache: 'fs file bodies',
    workload: 'GET 16 KB text',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 8, TEXT_16KB, (i) => `/bench/bench-private/texts/t${padded(i)}.txt`)) await world.request(path);
    },
  },
  {
    cache: 'fs sidecar types',
    workload: 'GET ~90 B JSON-LD, as POSTed (none)',
    fill: readPosted,
  },
  {
    cache: 'fs sidecar types',
    workload: 'PUT text/plain, then text/markdown',
    fill: async (world) => {
      for (let i = 0; i < ENTRIES / 2; i++) {
        const path = `/bench/bench-private/notes/n${padded(i)}`;
        await world.request(path, put('text/plain', 'a note'));
        await world.request(path, put('text/markdown', '# a note'));
      }
    },
  },
  {
    cache: 'fs listings',
    workload: `GET ${containerCount} containers of 1,000`,
    fill: async (world) => {
      for (const container of containersOf(world, containerCount)) await world.request(container, accept('text/turtle'));
    },
  },
  {
    cache: 'listing bodies',
    workload: `GET ${containerCount} containers of 1,000 (Turtle, JSON-LD)`,
    fill: async (world) => {
      for (const container of containersOf(world, containerCount)) {
        await world.request(container, accept('text/turtle'));
        await world.request(container, accept('application/ld+json'));
      }
    },
  },
  {
    cache: 'listing bodies',
    workload: `GET ${containerCount} containers of 1,000 (Turtle)`,
    fill: async (world) => {
      for (const container of containersOf(world, containerCount)) await world.request(container, accept('text/turtle'));
    },
  },
  {
    cache: 'conversions',
    workload: 'GET 1 KB JSON-LD as Turtle',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 2, SMALL_JSON_LD)) await world.request(path, accept('text/turtle'));
    },
  },
  {
    cache: 'ACL documents',
    workload: 'GET in containers with an ACL each',
    fill: async (world) => {
      for (let i = 0; i < ENTRIES / 4; i++) {
        const container = `/bench/bench-private/box${padded(i)}/`;
        world.seed(`${container}.acl`, restrictedAcl(`${BASE}/bench/#me`, BASE + container, false, [READER]));
        world.seed(`${container}small.json`, POST_BODY);
        await world.request(`${container}small.json`);
      }
    },
  },
  {
    cache: 'ACL documents',
    workload: 'GET in nested containers without ACLs (absent ones)',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 4, POST_BODY, (i) => `/bench/bench-private/deep${padded(i)}/inner/small`)) await world.request(path);
    },
  },
  {
    cache: 'WAC decisions',
    workload: 'GET ~90 B documents (owner)',
    fill: async (world) => {
      for (const path of seedDocs(world, ENTRIES / 2, POST_BODY)) await world.request(path);
    },
  },
];

/** heapUsed + external once the collector has nothing more to free. */
async function settledHeap(): Promise<number> {
  let last = Infinity;
  for (let round = 0; round < 8; round++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
    const { heapUsed, external } = process.memoryUsage();
    if (round >= 3 && Math.abs(heapUsed + external - last) < 16 * 1024) return heapUsed + external;
    last = heapUsed + external;
  }
  return last;
}

export interface Row {
  cache: CacheName;
  workload: string;
  entries: number;
  accounted: number;
  measured: number;
}

async function measure(scenario: Scenario): Promise<Row> {
  const root = await mkdtemp(join(tmpdir(), 'svc-cache-weights-'));
  try {
    named.clear();
    await scenario.fill(await openWorld(root));
    const caches = [...named].filter(([, name]) => name !== null);
    const target = caches.filter(([, name]) => name === scenario.cache).map(([cache]) => cache);
    if (target.length !== 1) throw new Error(`${scenario.cache}: ${target.length} caches found`);
    for (const [cache, name] of caches) if (name !== scenario.cache) cache.clear();
    const cache = target[0]!;
    const entries = sizes.get(cache) ?? 0;
    const accounted = cache.weight;
    const full = await settledHeap();
    cache.clear();
    const emptied = await settledHeap();
    return { cache: scenario.cache, workload: scenario.workload, entries, accounted, measured: full - emptied };
  } finally {
    named.clear();
    await rm(root, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const scenario of SCENARIOS) {
  if (ONLY && !ONLY.some((part) => `${scenario.cache}: ${scenario.workload}`.includes(part))) continue;
  const started = performance.now();
  rows.push(await measure(scenario));
  if (!values.json) console.error(`${scenario.cache}, ${scenario.workload}: ${Math.round(performance.now() - started)} ms`);
}

if (values.json) console.log(JSON.stringify(rows));
else {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
  console.log('| cache | workload | entries | accounted MB | measured MB | ratio | measured B/entry |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(`| ${row.cache} | ${row.workload} | ${row.entries} | ${mb(row.accounted)} | ${mb(row.measured)} | ${(row.measured / row.accounted).toFixed(2)} | ${Math.round(row.measured / row.entries)} |`);
  }
}
