/**
 * What a DPoP-authenticated request costs next to a bearer one, in-process (no network, no load generator):
 *
 *   npm run bench:dpop [-- --requests 5000]
 *
 * One app over the memory driver with a pod `alice` whose private container grants Read to a WebID of a
 * loopback issuer (`bench/dpop.ts`, reached through the Node guarded fetch with private targets allowed).
 * The same GET of a small resource is timed as the owner with the server's bearer token, as another pod's
 * owner granted Read (bearer: the same WAC decision as the DPoP reader), and as the reader with a DPoP token
 * (cached after the first request) and a fresh proof per request (made before the timing). Within a round
 * the kinds take turns in slices of 100 requests, so a busy machine's load falls on all of them alike; with
 * `--expose-gc` (as `npm run bench:dpop` runs it) the garbage of signing the proofs is collected before the
 * round. Medians of wall time and process CPU time per request are printed, with their ratio.
 *
 * A second app runs with `--idp`: its account alice reads her own resource with a DPoP-bound token of that
 * identity provider (from `POST /idp/credentials`, bound to the same client key), whose every request also
 * asks whether the token has ended (a password change, a revoked app: src/idp/ended-tokens.ts). With
 * `--redis-url` both apps share state through that Redis, as instances of a scaled-out server do.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { nodeOutboundFetch } from '../runtimes/node/outbound-fetch.ts';
import { openRedisSharedState } from '../runtimes/node/redis-shared-state.ts';
import { nodeSignatureVerifier } from '../runtimes/node/signature-verifier.ts';
import { MemoryDriver } from '../storage-drivers/memory.ts';
import { startBenchDpop } from './dpop.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' }, 'redis-url': { type: 'string' } } });
const REQUESTS = Number(values.requests);
if (!Number.isInteger(REQUESTS) || REQUESTS < 10) {
  console.error(`--requests must be a whole number of at least 10, not ${JSON.stringify(values.requests)}`);
  process.exit(2);
}
const ROUNDS = 6;
/** Requests of one kind timed before the next kind's turn. */
const SLICE = 100;
const BASE = 'http://bench.test';
const RESOURCE = `${BASE}/alice/private/small.json`;

const dpop = await startBenchDpop();
const redisUrl = values['redis-url'];
const sharedStates = redisUrl ? [await openRedisSharedState(redisUrl, console.error), await openRedisSharedState(redisUrl, console.error)] : [];
try {
  const platform = (index: number) => ({
    runtime: 'bench',
    storage: new MemoryDriver(),
    log: () => {},
    fetch: nodeOutboundFetch({ allowPrivate: true }),
    signatureVerifier: nodeSignatureVerifier,
    ...(sharedStates[index] && { sharedState: sharedStates[index] }),
  });
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false } });
  const app = createApp(config, platform(0));
  const created = await app.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' }));
  const { token } = (await created.json()) as { token: string };
  const owner = { authorization: `Bearer ${token}` };
  // A second pod's owner granted the same Read as the DPoP reader: the same WAC decision, another credential.
  const bobCreated = await app.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"bob"}' }));
  const bob = { authorization: `Bearer ${((await bobCreated.json()) as { token: string }).token}` };
  const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#reader> a acl:Authorization; acl:agent <${dpop.webId}>, <${BASE}/bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`;
  for (const [url, type, body] of [[`${BASE}/alice/private/.acl`, 'text/turtle', acl], [RESOURCE, 'application/ld+json', '{"@id": "#it", "http://schema.org/name": "small"}']]) {
    const put = await app.fetch(new Request(url!, { method: 'PUT', headers: { ...owner, 'content-type': type! }, body }));
    if (put.status >= 300) throw new Error(`PUT ${url} answered ${put.status}`);
  }

  // The identity provider's app: alice reads her own resource with a DPoP token of this server's --idp.
  const idpApp = createApp(resolveConfig({ flags: { quiet: true, rateLimit: false, idp: true } }), platform(1));
  const account = { email: 'alice@bench.test', password: 'bench password' };
  const made = await idpApp.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', ...account }) }));
  if (made.status !== 201) throw new Error(`--idp pod creation answered ${made.status}`);
  const credentials = `${BASE}/idp/credentials`;
  const issued = await idpApp.fetch(new Request(credentials, { method: 'POST', headers: { 'content-type': 'application/json', dpop: dpop.proof('POST', credentials) }, body: JSON.stringify(account) }));
  const { access_token: idpToken } = (await issued.json()) as { access_token: string };
  const ownScript = await idpApp.fetch(new Request(`${BASE}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) }));
  const { access_token: ownBearer } = (await ownScript.json()) as { access_token: string };
  const ownPut = await idpApp.fetch(new Request(RESOURCE, { method: 'PUT', headers: { authorization: `Bearer ${ownBearer}`, 'content-type': 'application/ld+json' }, body: '{"@id": "#it", "http://schema.org/name": "small"}' }));
  if (ownPut.status >= 300) throw new Error(`PUT on the --idp app answered ${ownPut.status}`);

  /** Wall and CPU microseconds spent on sequential GETs with these headers; every answer must be a 200. */
  async function time(headers: readonly Record<string, string>[], target = app): Promise<{ wall: number; cpu: number }> {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (const header of headers) {
      const response = await target.fetch(new Request(RESOURCE, { headers: header }));
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET answered ${response.status}: ${JSON.stringify(Object.fromEntries(response.headers))}`);
    }
    const cpu = process.cpuUsage(cpuStart);
    return { wall: (performance.now() - start) * 1000, cpu: cpu.user + cpu.system };
  }
  const bearerHeaders = () => Array.from({ length: REQUESTS }, () => owner);
  const readerHeaders = () => Array.from({ length: REQUESTS }, () => bob);
  const dpopHeaders = () => Array.from({ length: REQUESTS }, () => ({ authorization: `DPoP ${dpop.token}`, dpop: dpop.proof('GET', RESOURCE) }));
  const idpHeaders = () => Array.from({ length: REQUESTS }, () => ({ authorization: `DPoP ${idpToken}`, dpop: dpop.proof('GET', RESOURCE) }));

  const kinds = {
    'Bearer, the owner': bearerHeaders,
    'Bearer, a reader (bob)': readerHeaders,
    'DPoP, a reader (cached token, new proof)': dpopHeaders,
    'DPoP, the owner, a token of --idp': idpHeaders,
  } as const;
  /** The app each kind is sent to. */
  const targets: Partial<Record<keyof typeof kinds, typeof app>> = { 'DPoP, the owner, a token of --idp': idpApp };
  type Kind = keyof typeof kinds;
  const names = Object.keys(kinds) as Kind[];
  const results = new Map<Kind, { wall: number; cpu: number }[]>();
  for (const kind of names) await time(kinds[kind]().slice(0, 200), targets[kind]);
  for (let round = 0; round < ROUNDS; round++) {
    // Every request of the round is prepared first (proofs signed), and the garbage of that collected when
    // the process allows it (--expose-gc), so the timings hold only what the server does.
    const prepared = new Map(names.map((kind) => [kind, kinds[kind]()]));
    (globalThis as { gc?: () => void }).gc?.();
    // Small slices of each kind in turn, so the load of a busy machine falls on all kinds alike.
    const spent = new Map(names.map((kind) => [kind, { wall: 0, cpu: 0 }]));
    for (let from = 0; from < REQUESTS; from += SLICE) {
      const order = (from / SLICE) % 2 === 0 ? names : [...names].reverse();
      for (const kind of order) {
        const { wall, cpu } = await time(prepared.get(kind)!.slice(from, from + SLICE), targets[kind]);
        spent.get(kind)!.wall += wall;
        spent.get(kind)!.cpu += cpu;
      }
    }
    for (const kind of names) results.set(kind, [...(results.get(kind) ?? []), { wall: spent.get(kind)!.wall / REQUESTS, cpu: spent.get(kind)!.cpu / REQUESTS }]);
  }
  const summary = (kind: Kind) => ({ wall: median(results.get(kind)!.map((r) => r.wall)), cpu: median(results.get(kind)!.map((r) => r.cpu)) });
  console.log(`${REQUESTS} sequential GETs per round, ${ROUNDS} rounds, medians${redisUrl ? ', shared state in Redis' : ''}:`);
  for (const kind of Object.keys(kinds) as Kind[]) {
    const { wall, cpu } = summary(kind);
    console.log(`  ${kind.padEnd(42)} ${wall.toFixed(0).padStart(5)} µs wall  ${cpu.toFixed(0).padStart(5)} µs CPU`);
  }
  const reader = summary('Bearer, a reader (bob)');
  const bound = summary('DPoP, a reader (cached token, new proof)');
  console.log(`  DPoP / Bearer (same reader rights): ${(bound.wall / reader.wall).toFixed(2)}× wall, ${(bound.cpu / reader.cpu).toFixed(2)}× CPU`);
  const ratios = results.get('DPoP, a reader (cached token, new proof)')!.map((round, index) => round.cpu / results.get('Bearer, a reader (bob)')![index]!.cpu);
  console.log(`  CPU ratio of each round: ${ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(' ')}`);
  const own = summary('DPoP, the owner, a token of --idp');
  console.log(`  --idp token / another issuer's token: ${(own.wall / bound.wall).toFixed(2)}× wall, ${(own.cpu / bound.cpu).toFixed(2)}× CPU`);
} finally {
  await dpop.close();
  for (const state of sharedStates) await state.close();
}
