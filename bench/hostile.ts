/**
 * Hostile request bodies against svc's handlers in this process, each sent while a separate process GETs a tiny
 * resource over HTTP from the same app, a few milliseconds apart: the slowest GET that overlaps a body is what any
 * other client waited for it. A timer-lag probe also says how long the event loop was held, in wall time and in
 * CPU time (which the machine's load does not stretch). Part of `npm run bench`; alone: `npm run bench:hostile`.
 * Exits non-zero if, for any body, a GET waits longer than the budget or the body gets a 5xx.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { FsDriver } from '../storage-drivers/fs.ts';
import { startGetProber, worstGetBetween } from './get-prober.ts';

/** Longest time one request may make the others wait (hold the event loop). */
export const LOOP_BUDGET_MS = 100;
const BASE = 'http://127.0.0.1:3000';

export interface HostileResult {
  name: string;
  bytes: number;
  status: number;
  totalMs: number;
  maxLagMs: number;
  /** The most CPU time the process used between two ticks of the lag probe. */
  maxLagCpuMs: number;
  /** The slowest of the tiny GETs (from another process, over HTTP) that overlapped the body. */
  worstGetMs: number;
  ok: boolean;
}

interface HostileCase {
  name: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent with the owner's token (the default for paths under /alice/public/, which only the owner may write). */
  owner?: boolean;
}

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const repeat = (count: number, make: (index: number) => string, separator = '') => Array.from({ length: count }, (_, index) => make(index)).join(separator);

function cases(): HostileCase[] {
  const jsonLd = { 'Content-Type': 'application/ld+json' };
  const turtle = { 'Content-Type': 'text/turtle' };
  const sparql = { 'Content-Type': 'application/sparql-update' };
  const n3 = { 'Content-Type': 'text/n3' };
  const values = repeat(40_000, (i) => `"v${i}"`, ',');
  const nestedList = (depth: number) => `${'('.repeat(depth)}"x"${')'.repeat(depth)}`;
  return [
    // Issue 29: within the per-piece limits, but large in total; then the same just under --max-rdf-size (4 MB,
    // 131,072 triples), and that list read back in other forms and patched.
    { name: 'JSON-LD, @graph of 200,000 small nodes (anonymous, inbox)', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@graph":[${repeat(200_000, (i) => `{"@id":"#n${i}","http://ex/p":${i}}`, ',')}]}` },
    { name: 'Turtle, a list of 300,000 items', method: 'PUT', path: '/alice/public/list.ttl', headers: turtle, body: `<#r> <http://ex/p> (${repeat(300_000, (i) => `"${i}"`, ' ')}) .` },
    { name: 'JSON-LD, @graph of 110,000 small nodes (anonymous, inbox)', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@graph":[${repeat(110_000, (i) => `{"@id":"#n${i}","http://ex/p":${i}}`, ',')}]}` },
    { name: 'Turtle, a list of 65,000 items', method: 'PUT', path: '/alice/public/list.ttl', headers: turtle, body: `<#r> <http://ex/p> (${repeat(65_000, (i) => `"${i}"`, ' ')}) .` },
    { name: 'GET of that list as JSON-LD', method: 'GET', path: '/alice/public/list.ttl', headers: { Accept: 'application/ld+json' } },
    { name: 'GET of that list as N-Triples', method: 'GET', path: '/alice/public/list.ttl', headers: { Accept: 'application/n-triples' } },
    { name: 'N3 Patch of that list', method: 'PATCH', path: '/alice/public/list.ttl', headers: n3, body: '@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { <#r> <http://ex/q> "patched". }.' },
    // A caller with Append but not Write gets the stored text with the triples after it, parsed again to check.
    { name: 'Turtle list of 65,000 items where the public may append', method: 'PUT', path: '/alice/appendable/list.ttl', headers: turtle, owner: true, body: `<#r> <http://ex/p> (${repeat(65_000, (i) => `"${i}"`, ' ')}) .` },
    { name: 'N3 Patch of that list by a caller who may only append (anonymous)', method: 'PATCH', path: '/alice/appendable/list.ttl', headers: n3, body: '@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { <#r> <http://ex/q> "appended". }.' },
    { name: 'SPARQL Update, INSERT DATA of 20,000 triples by a caller who may only append (anonymous)', method: 'PATCH', path: '/alice/appendable/keep.ttl', headers: sparql, body: `INSERT DATA { ${repeat(20_000, (i) => `<#s${i}> <http://ex/p> "v${i}" .`, ' ')} }` },
    { name: 'JSON-LD, 40,000 values of one property (anonymous, inbox)', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@id":"#r","http://ex/p":[${values}]}` },
    { name: 'JSON-LD, one subject in 10,000 nodes of @graph', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@graph":[${repeat(10_000, (i) => `{"@id":"#r","http://ex/p":"v${i}"}`, ',')}]}` },
    { name: 'JSON-LD, 40,000 values, with a @context', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@context":{"p":"http://ex/p"},"@id":"#r","p":[${values}]}` },
    { name: 'JSON-LD, 5,000 terms in @context', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@context":{${repeat(5000, (i) => `"t${i}":"http://ex/t${i}"`, ',')}},"@id":"#r","t1":"x"}` },
    { name: 'JSON-LD, nested 100,000 deep', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `${'{"http://ex/p":'.repeat(100_000)}"x"${'}'.repeat(100_000)}` },
    { name: 'JSON-LD, lists nested 1,000 deep', method: 'POST', path: '/alice/inbox/', headers: jsonLd, body: `{"@id":"#r","http://ex/p":${'{"@list":['.repeat(1000)}"x"${']}'.repeat(1000)}}` },
    { name: 'Turtle, 40,000 values of one property', method: 'PUT', path: '/alice/public/values.ttl', headers: turtle, body: `<#r> <http://ex/p> ${values} .` },
    { name: 'Turtle, lists nested 1,000 deep', method: 'PUT', path: '/alice/public/lists.ttl', headers: turtle, body: `<#r> <http://ex/p> ${nestedList(1000)} .` },
    { name: 'Turtle, blank nodes nested 100,000 deep', method: 'PUT', path: '/alice/public/blank.ttl', headers: turtle, body: `<#r> <http://ex/p> ${'[<http://ex/p> '.repeat(100_000)}1${']'.repeat(100_000)} .` },
    { name: 'N-Triples, lists nested 2,000 deep', method: 'PUT', path: '/alice/public/lists.nt', headers: { 'Content-Type': 'application/n-triples' }, body: repeat(2000, (i) => `_:l${i} <${RDF}first> _:l${i + 1} .\n_:l${i} <${RDF}rest> <${RDF}nil> .\n`) },
    { name: 'SPARQL Update, groups nested 6,000 deep', method: 'PATCH', path: '/alice/public/doc.ttl', headers: sparql, body: `DELETE { ?s ?p ?o } WHERE ${'{'.repeat(6000)} ?s ?p ?o ${'}'.repeat(6000)}` },
    { name: 'SPARQL Update, INSERT DATA of 1,000 triples (30 KB)', method: 'PATCH', path: '/alice/public/doc.ttl', headers: sparql, body: `INSERT DATA { ${repeat(1000, (i) => `<#s${i}> <http://ex/p> "v${i}" .`, ' ')} }` },
    { name: 'SPARQL Update, INSERT DATA of 20,000 triples', method: 'PATCH', path: '/alice/public/doc.ttl', headers: sparql, body: `INSERT DATA { ${repeat(20_000, (i) => `<#s${i}> <http://ex/p> "v${i}" .`, ' ')} }` },
    { name: 'SPARQL Update, where clause of 2,000 patterns', method: 'PATCH', path: '/alice/public/doc.ttl', headers: sparql, body: `DELETE { ?s ?p ?o } WHERE { ${repeat(2000, (i) => `?s${i} ?p${i} ?o${i} .`, ' ')} ?s ?p ?o }` },
    { name: 'N3 Patch, formula nested 6,000 deep', method: 'PATCH', path: '/alice/public/doc.ttl', headers: n3, body: `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts ${'{'.repeat(6000)}${'}'.repeat(6000)}.` },
    { name: 'N3 Patch, 10,000 inserted triples', method: 'PATCH', path: '/alice/public/patched.ttl', headers: n3, body: `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { ${repeat(10_000, (i) => `<#s${i}> <http://ex/p> "v${i}".`, ' ')} }.` },
    { name: 'ACL, 3,000 authorizations', method: 'PUT', path: '/alice/public/other.ttl.acl', headers: turtle, body: `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n${repeat(3000, (i) => `<#r${i}> a acl:Authorization; acl:agent <https://x.test/${i}#me>; acl:accessTo <other.ttl>; acl:mode acl:Read.`, '\n')}` },
    { name: 'POST /.pods, JSON nested 8,000 deep', method: 'POST', path: '/.pods', headers: { 'Content-Type': 'application/json' }, body: `{"name":${'['.repeat(8000)}${']'.repeat(8000)}}` },
    { name: 'Subscription, JSON nested 8,000 deep', method: 'POST', path: '/.notifications/WebSocketChannel2023/', headers: jsonLd, body: `{"type":${'['.repeat(8000)}${']'.repeat(8000)}}` },
    { name: 'Accept with 2,000 media ranges', method: 'GET', path: '/alice/public/small.ttl', headers: { Accept: repeat(2000, (i) => `text/x${i};q=0.${i % 10};a=b`, ',') } },
    { name: 'If-None-Match with 2,000 tags', method: 'GET', path: '/alice/public/small.ttl', headers: { 'If-None-Match': repeat(2000, (i) => `"tag-${i}"`, ', ') } },
    { name: 'Range with 2,000 ranges', method: 'GET', path: '/alice/public/small.ttl', headers: { Range: `bytes=${repeat(2000, (i) => `${i}-${i}`, ',')}` } },
    { name: 'Listing of a 1,000-member container', method: 'GET', path: '/alice/public/many/', headers: { Accept: 'text/turtle' } },
  ];
}

/** Runs a function while a 1 ms interval timer records the longest gap between its ticks, and the most CPU time used in one. */
async function withLagProbe<T>(run: () => Promise<T>): Promise<{ value: T; maxLagMs: number; maxLagCpuMs: number }> {
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpu();
  let maxLagMs = 0;
  let maxLagCpuMs = 0;
  const tick = () => {
    const now = performance.now();
    const used = cpu();
    maxLagMs = Math.max(maxLagMs, now - last);
    maxLagCpuMs = Math.max(maxLagCpuMs, used - lastCpu);
    last = now;
    lastCpu = used;
  };
  const timer = setInterval(tick, 1);
  try {
    const value = await run();
    tick();
    return { value, maxLagMs, maxLagCpuMs };
  } finally {
    clearInterval(timer);
  }
}

/** `only`: run just the bodies whose name contains this text. */
export async function runHostileChecks(log: (line: string) => void = console.error, only?: string): Promise<HostileResult[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-hostile-'));
  try {
    const config = resolveConfig({ flags: { quiet: true, rateLimit: false, conneg: true, notifications: true, defaultQuota: 0 } });
    const app = createApp(config, { runtime: 'bench', storage: await FsDriver.open(root), log: () => {} });
    const send = async (path: string, init: RequestInit) => {
      const response = await app.fetch(new Request(BASE + path, init));
      await response.arrayBuffer();
      return response;
    };
    const created = await app.fetch(new Request(`${BASE}/.pods`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"alice"}' }));
    if (created.status !== 201) throw new Error(`creating the bench pod answered ${created.status}`);
    const owner = { Authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
    // Warm-up: each parser and module loads once before anything is measured.
    await send('/alice/public/doc.ttl', { method: 'PUT', headers: { ...owner, 'Content-Type': 'text/turtle' }, body: '<#a> <http://ex/p> "x" .' });
    await send('/alice/public/small.ttl', { method: 'PUT', headers: { ...owner, 'Content-Type': 'text/turtle' }, body: '<#a> <http://ex/p> "x" .' });
    const appendable = `@prefix acl: <http://www.w3.org/ns/auth/acl#>. @prefix foaf: <http://xmlns.com/foaf/0.1/>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Append.`;
    await send('/alice/appendable/keep.ttl', { method: 'PUT', headers: { ...owner, 'Content-Type': 'text/turtle' }, body: '<#a> <http://ex/p> "x" .' });
    const acl = await send('/alice/appendable/.acl', { method: 'PUT', headers: { ...owner, 'Content-Type': 'text/turtle' }, body: appendable });
    if (acl.status !== 201) throw new Error(`the appendable container's ACL answered ${acl.status}`);
    await send('/alice/inbox/', { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: '{"@id":"#w","http://ex/p":"w"}' });
    await send('/alice/public/doc.ttl', { method: 'PATCH', headers: { ...owner, 'Content-Type': 'application/sparql-update' }, body: 'INSERT DATA { <#w> <http://ex/p> "w" . }' });
    for (let i = 0; i < 1000; i++) await send(`/alice/public/many/m${i}.json`, { method: 'PUT', headers: { ...owner, 'Content-Type': 'application/ld+json' }, body: '{}' });
    await send('/alice/public/doc.ttl', { headers: { Accept: 'application/ld+json' } });

    const server = createServer(getRequestListener((request) => app.fetch(request)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const prober = startGetProber(`http://127.0.0.1:${(server.address() as AddressInfo).port}/alice/public/small.ttl`, owner);
    const results: HostileResult[] = [];
    // Made before anything is measured: building the largest bodies takes the loop for a second.
    const selected = cases().filter((c) => !only || c.name.toLowerCase().includes(only.toLowerCase()));
    try {
      // With nothing else to do, what the machine's load alone costs a GET.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const quietFrom = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const quiet = await worstGetBetween(prober.samples, quietFrom, Date.now());
      log(`hostile: load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores (the figures grow with it); the slowest GET with nothing else going on: ${quiet.toFixed(0)} ms`);
      for (const hostile of selected) {
        const headers = hostile.owner || hostile.path.startsWith('/alice/public/') ? { ...owner, ...hostile.headers } : hostile.headers;
        const from = Date.now();
        const started = performance.now();
        const { value: response, maxLagMs, maxLagCpuMs } = await withLagProbe(() => send(hostile.path, { method: hostile.method, headers, body: hostile.body }));
        const totalMs = performance.now() - started;
        const worstGetMs = await worstGetBetween(prober.samples, from, Date.now());
        const result = { name: hostile.name, bytes: hostile.body?.length ?? 0, status: response.status, totalMs, maxLagMs, maxLagCpuMs, worstGetMs, ok: response.status < 500 && worstGetMs <= LOOP_BUDGET_MS };
        results.push(result);
        log(
          `hostile: ${result.ok ? 'ok  ' : 'FAIL'} ${result.status} GET waited ${worstGetMs.toFixed(0).padStart(5)} ms, loop held ${maxLagMs.toFixed(0).padStart(5)} ms (${maxLagCpuMs.toFixed(0).padStart(4)} ms CPU), ${totalMs.toFixed(0)} ms in all: ${hostile.name}`,
        );
      }
    } finally {
      await prober.stop();
      await new Promise((resolve) => server.close(resolve));
    }
    return results;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Markdown table of the results, for the bench report. */
export function hostileReport(results: readonly HostileResult[]): string {
  const rows = results.map((r) => `| ${r.name} | ${(r.bytes / 1024).toFixed(0)} KB | ${r.status} | ${r.worstGetMs.toFixed(0)} | ${r.maxLagMs.toFixed(0)} (${r.maxLagCpuMs.toFixed(0)} CPU) | ${r.totalMs.toFixed(0)} | ${r.ok ? 'ok' : 'FAILED'} |`);
  return [
    `### Hostile bodies (budget ${LOOP_BUDGET_MS} ms for the concurrent GET)`,
    '',
    '| body | size | status | worst concurrent GET (ms) | longest event-loop hold (ms) | total (ms) | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await runHostileChecks(console.error, process.argv[2]);
  console.log(hostileReport(results));
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}
