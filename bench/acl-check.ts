/**
 * What Web Access Control costs per request on a warm ACL cache, measured in-process (no network).
 *
 *   npm run bench:acl [-- --requests 20000]
 *
 * Builds two apps over the memory driver, one with `--public` (no ACL check) and one enforcing WAC, each
 * with a pod `alice` and a resource four containers deep whose nearest ACL is the pod root's (the longest
 * walk up the cache). Then it times the same GETs against both, interleaved in rounds so drift hits both
 * alike, and prints the mean time per request and the difference: the ACL check (effective ACL lookup,
 * evaluation for the caller and for the public for WAC-Allow).
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { MemoryDriver } from '../storage-drivers/memory.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '20000' } } });
const REQUESTS = Number(values.requests);
if (!Number.isInteger(REQUESTS) || REQUESTS < 10) {
  console.error(`--requests must be a whole number of at least 10, not ${JSON.stringify(values.requests)}`);
  process.exit(2);
}
const ROUNDS = 10;
const BASE = 'http://bench.test';
const DEEP = '/alice/a/b/c/d/doc';

interface Target {
  name: string;
  get(path: string, token: string | null): Promise<Response>;
  token: string;
}

async function target(name: string, flags: Record<string, unknown>): Promise<Target> {
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false, ...flags } });
  const app = createApp(config, { runtime: 'bench', storage: new MemoryDriver(), log: () => {} });
  const request = async (path: string, init: RequestInit = {}) => app.fetch(new Request(BASE + path, init));
  const created = await request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' });
  if (created.status !== 201) throw new Error(`${name}: pod creation answered ${created.status}`);
  const { token } = (await created.json()) as { token: string };
  const put = await request(DEEP, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body: 'x' });
  if (put.status !== 201) throw new Error(`${name}: PUT answered ${put.status}`);
  const get = (path: string, bearer: string | null) => request(path, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});
  return { name, get, token };
}

/** Mean microseconds per GET over `count` sequential requests; every answer must be a 200. */
async function time(run: () => Promise<Response>, count: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const response = await run();
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
  }
  return ((performance.now() - start) * 1000) / count;
}

const targets = [await target('--public', { public: true }), await target('WAC', { public: false })];
const cases = [
  { name: `owner GET ${DEEP}`, path: DEEP, owner: true },
  { name: 'anonymous GET /alice/public/ listing', path: '/alice/public/', owner: false },
];
const perRound = Math.ceil(REQUESTS / ROUNDS);

console.log(`${REQUESTS} GETs per case and server, in ${ROUNDS} interleaved rounds (warm cache)\n`);
for (const { name, path, owner } of cases) {
  const totals = new Map<string, number>(targets.map((t) => [t.name, 0]));
  for (const t of targets) await time(() => t.get(path, owner ? t.token : null), perRound); // warm-up, not counted
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) totals.set(t.name, totals.get(t.name)! + (await time(() => t.get(path, owner ? t.token : null), perRound)));
  }
  const open = totals.get('--public')! / ROUNDS;
  const wac = totals.get('WAC')! / ROUNDS;
  console.log(name);
  console.log(`  --public ${open.toFixed(1)} µs/request   WAC ${wac.toFixed(1)} µs/request   ACL check ${(wac - open).toFixed(1)} µs (${(((wac - open) / open) * 100).toFixed(0)} %)\n`);
}
