/**
 * Hostile request bodies against svc's handlers in this process, with a timer-lag probe: how long each one holds
 * the event loop (every other client waits that long). Part of `npm run bench`; alone: `npm run bench:hostile`.
 * Exits non-zero if any body holds the loop longer than the budget or gets a 5xx.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { resolveConfig } from '../src/config/resolve.ts';
import { FsDriver } from '../storage-drivers/fs.ts';

/** Longest time one request may hold the event loop. */
export const LOOP_BUDGET_MS = 100;
const BASE = 'http://127.0.0.1:3000';

export interface HostileResult {
  name: string;
  bytes: number;
  status: number;
  totalMs: number;
  maxLagMs: number;
  ok: boolean;
}

interface HostileCase {
  name: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
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

/** Runs a function while a 1 ms interval timer records the longest gap between its ticks. */
async function withLagProbe<T>(run: () => Promise<T>): Promise<{ value: T; maxLagMs: number }> {
  let last = performance.now();
  let maxLagMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - last);
    last = now;
  }, 1);
  try {
    const value = await run();
    maxLagMs = Math.max(maxLagMs, performance.now() - last);
    return { value, maxLagMs };
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
    await send('/alice/inbox/', { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: '{"@id":"#w","http://ex/p":"w"}' });
    await send('/alice/public/doc.ttl', { method: 'PATCH', headers: { ...owner, 'Content-Type': 'application/sparql-update' }, body: 'INSERT DATA { <#w> <http://ex/p> "w" . }' });
    for (let i = 0; i < 1000; i++) await send(`/alice/public/many/m${i}.json`, { method: 'PUT', headers: { ...owner, 'Content-Type': 'application/ld+json' }, body: '{}' });
    await send('/alice/public/doc.ttl', { headers: { Accept: 'application/ld+json' } });

    log(`hostile: load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores (the figures grow with it)`);
    const results: HostileResult[] = [];
    for (const hostile of cases().filter((c) => !only || c.name.toLowerCase().includes(only.toLowerCase()))) {
      const headers = hostile.path.startsWith('/alice/public/') ? { ...owner, ...hostile.headers } : hostile.headers;
      const started = performance.now();
      const { value: response, maxLagMs } = await withLagProbe(() => send(hostile.path, { method: hostile.method, headers, body: hostile.body }));
      const totalMs = performance.now() - started;
      const result = { name: hostile.name, bytes: hostile.body?.length ?? 0, status: response.status, totalMs, maxLagMs, ok: response.status < 500 && maxLagMs <= LOOP_BUDGET_MS };
      results.push(result);
      log(`hostile: ${result.ok ? 'ok  ' : 'FAIL'} ${result.status} ${maxLagMs.toFixed(0).padStart(5)} ms held (${totalMs.toFixed(0)} ms total) ${hostile.name}`);
    }
    return results;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Markdown table of the results, for the bench report. */
export function hostileReport(results: readonly HostileResult[]): string {
  const rows = results.map((r) => `| ${r.name} | ${(r.bytes / 1024).toFixed(0)} KB | ${r.status} | ${r.maxLagMs.toFixed(0)} | ${r.totalMs.toFixed(0)} | ${r.ok ? 'ok' : 'FAILED'} |`);
  return [
    `### Hostile bodies (event loop budget ${LOOP_BUDGET_MS} ms)`,
    '',
    '| body | size | status | longest event-loop hold (ms) | total (ms) | verdict |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await runHostileChecks(console.error, process.argv[2]);
  console.log(hostileReport(results));
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}
