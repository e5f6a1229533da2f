/**
 * What a DPoP-authenticated request costs next to a bearer one, in-process (no network, no load generator):
 *
 *   npm run bench:dpop [-- --requests 5000]
 *
 * One app over the memory driver with a pod `alice` whose private container grants Read to a WebID of a
 * loopback issuer (`bench/dpop.ts`, reached through the Node guarded fetch with private targets allowed).
 * The same GET of a small resource is timed as the owner with the server's bearer token and as the reader
 * with a DPoP token (cached after the first request) and a fresh proof per request (made before the timing).
 * Rounds alternate, and both wall time and process CPU time per request are printed, with their ratio.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { nodeOutboundFetch } from '../runtimes/node/outbound-fetch.ts';
import { MemoryDriver } from '../storage-drivers/memory.ts';
import { startBenchDpop } from './dpop.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' } } });
const REQUESTS = Number(values.requests);
if (!Number.isInteger(REQUESTS) || REQUESTS < 10) {
  console.error(`--requests must be a whole number of at least 10, not ${JSON.stringify(values.requests)}`);
  process.exit(2);
}
const ROUNDS = 6;
const BASE = 'http://bench.test';
const RESOURCE = `${BASE}/alice/private/small.json`;

const dpop = await startBenchDpop();
try {
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false } });
  const app = createApp(config, { runtime: 'bench', storage: new MemoryDriver(), log: () => {}, fetch: nodeOutboundFetch({ allowPrivate: true }) });
  const created = await app.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' }));
  const { token } = (await created.json()) as { token: string };
  const owner = { authorization: `Bearer ${token}` };
  const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#reader> a acl:Authorization; acl:agent <${dpop.webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`;
  for (const [url, type, body] of [[`${BASE}/alice/private/.acl`, 'text/turtle', acl], [RESOURCE, 'application/ld+json', '{"@id": "#it", "http://schema.org/name": "small"}']]) {
    const put = await app.fetch(new Request(url!, { method: 'PUT', headers: { ...owner, 'content-type': type! }, body }));
    if (put.status >= 300) throw new Error(`PUT ${url} answered ${put.status}`);
  }

  /** Mean wall and CPU microseconds per request over `headers.length` sequential GETs; every answer must be a 200. */
  async function time(headers: readonly Record<string, string>[]): Promise<{ wall: number; cpu: number }> {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (const header of headers) {
      const response = await app.fetch(new Request(RESOURCE, { headers: header }));
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET answered ${response.status}: ${JSON.stringify(Object.fromEntries(response.headers))}`);
    }
    const cpu = process.cpuUsage(cpuStart);
    return { wall: ((performance.now() - start) * 1000) / headers.length, cpu: (cpu.user + cpu.system) / headers.length };
  }
  const bearerHeaders = () => Array.from({ length: REQUESTS }, () => owner);
  const dpopHeaders = () => Array.from({ length: REQUESTS }, () => ({ authorization: `DPoP ${dpop.token}`, dpop: dpop.proof('GET', RESOURCE) }));

  await time(bearerHeaders().slice(0, 200));
  await time(dpopHeaders().slice(0, 200));
  const results = { bearer: [] as { wall: number; cpu: number }[], dpop: [] as { wall: number; cpu: number }[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['bearer', 'dpop'] as const) : (['dpop', 'bearer'] as const);
    for (const kind of order) results[kind].push(await time(kind === 'bearer' ? bearerHeaders() : dpopHeaders()));
  }
  const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor((numbers.length - 1) / 2)]!;
  const summary = (kind: 'bearer' | 'dpop') => ({ wall: median(results[kind].map((r) => r.wall)), cpu: median(results[kind].map((r) => r.cpu)) });
  const bearer = summary('bearer');
  const bound = summary('dpop');
  console.log(`${REQUESTS} sequential GETs per round, ${ROUNDS} rounds, medians:`);
  console.log(`  Bearer (server token)         ${bearer.wall.toFixed(0).padStart(5)} µs wall  ${bearer.cpu.toFixed(0).padStart(5)} µs CPU`);
  console.log(`  DPoP (cached token, new proof) ${bound.wall.toFixed(0).padStart(5)} µs wall  ${bound.cpu.toFixed(0).padStart(5)} µs CPU`);
  console.log(`  DPoP / Bearer: ${(bound.wall / bearer.wall).toFixed(2)}× wall, ${(bound.cpu / bearer.cpu).toFixed(2)}× CPU`);
} finally {
  await dpop.close();
}
