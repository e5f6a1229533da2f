import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const TRACE = join(import.meta.dirname, '..', 'support', 'import-trace.mjs');
/**
 * Packages only an option or a kind of request needs: a start with the defaults answering its first request
 * loads none. (The modules of features that are off are still bundled with the core, see docs/benchmarks.md.)
 */
const NOT_AT_START = ['rdfa-streaming-parser', '@peculiar/asn1-x509', '@peculiar/asn1-schema', '@peculiar/asn1-rsa', 'jsonld', 'jose', 'sparqljs', 'ioredis', 'mongodb', 'aws4fetch', '@fedify/fedify', 'nostr-tools/pure'];

const imported = (output: string) => new Set([...output.matchAll(/^svc-import (\S+)$/gm)].map((match) => match[1]!));

describe('what a start loads', () => {
  let svc: RunningSvc | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  it('loads no module of a feature that is off, nor a parser no request has needed yet', async () => {
    svc = await startSvc([], { NODE_OPTIONS: `--import ${TRACE}` });
    expect((await fetch(`${svc.base}/`)).status).toBe(200);
    const loaded = imported(svc.output());
    expect(loaded.has('hono')).toBe(true);
    expect(loaded.has('n3')).toBe(true);
    expect(NOT_AT_START.filter((name) => loaded.has(name))).toEqual([]);
  });

  it('loads the HTML graph reader with the first page read as RDF', async () => {
    svc = await startSvc([], { NODE_OPTIONS: `--import ${TRACE}` });
    const pod = (await (await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as { token: string };
    const authorization = `Bearer ${pod.token}`;
    const page = '<html><body><p about="#it" property="http://schema.org/name">It</p></body></html>';
    expect((await fetch(`${svc.base}/alice/page.html`, { method: 'PUT', headers: { authorization, 'content-type': 'text/html' }, body: page })).status).toBe(201);
    expect(imported(svc.output()).has('rdfa-streaming-parser')).toBe(false);
    const graph = await fetch(`${svc.base}/alice/page.html`, { headers: { authorization, accept: 'application/ld+json' } });
    expect(await graph.text()).toContain('http://schema.org/name');
    await eventually(async () => (imported(svc!.output()).has('rdfa-streaming-parser') ? true : undefined), 'the import of rdfa-streaming-parser');
  });
});
