import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StorageDriver } from '../src/storage/types.ts';
import { makeApp, type TestApp } from './support/app.ts';

/**
 * Random requests against the whole app (memory driver): paths, headers and bodies of every type the server
 * parses. No request may get a 5xx, a refused request (4xx) must leave every stored resource as it was, and
 * what a write stored must read back as JSON-LD and Turtle without a 5xx.
 * `SVC_FUZZ_RUNS` sets the number of requests (default 300, a few seconds).
 */
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 300);

/** Every stored resource, its type and bytes (containers by their member list), in one string. */
async function snapshot(storage: StorageDriver): Promise<string> {
  const lines: string[] = [];
  const pending = ['/'];
  while (pending.length > 0) {
    const container = pending.pop()!;
    const members: string[] = [];
    for await (const meta of storage.list(container)) {
      members.push(meta.path);
      if (meta.isContainer) pending.push(meta.path);
      else {
        const stored = await storage.get(meta.path);
        lines.push(`${meta.path} ${meta.contentType} ${meta.etag} ${stored ? await new Response(stored.body).text() : '(gone)'}`);
      }
    }
    lines.push(`${container} [${members.sort().join(' ')}]`);
  }
  return lines.sort().join('\n');
}

const SEGMENTS = ['alice', 'inbox', 'public', 'settings', 'profile', 'card', 'doc.ttl', 'doc.json', 'new.ttl', 'x', '.acl', 'doc.ttl.acl', '.meta', '..', '.', '%2e%2e', '%2F', '%2f..', '%00', '\u0000', 'é', '%C3%A9', '%C3', '😀', '%', 'a b', '.server', '.pods', '.well-known', '.notifications', 'idp', ''];
const TARGETS = ['/alice/public/doc.ttl', '/alice/public/doc.json', '/alice/public/new.ttl', '/alice/public/', '/alice/inbox/', '/alice/public/doc.ttl.acl', '/alice/public/.acl', '/alice/profile/card', '/.pods', '/.notifications/WebSocketChannel2023/'];
const randomPath = fc
  .tuple(fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 5 }), fc.boolean(), fc.option(fc.constantFrom('?x=1', '?%00', '#frag', '?a=%ZZ'), { nil: '' }))
  .map(([segments, slash, suffix]) => `/${segments.join('/')}${slash && segments.length > 0 ? '/' : ''}${suffix}`);
/** Mostly the resources that exist, so writes land and later reads meet what they stored. */
const path = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TARGETS) }, { weight: 2, arbitrary: randomPath });

const IRI = fc.constantFrom('<#a>', '<#b>', '<>', '<./>', '<../x>', '<http://ex/p>', '<https://x.test/#me>', 'ex:p', 'ex:', ':x', 'a', '_:b', '_:c', '?x', '?y', 'acl:Read', 'acl:Write', 'acl:Append', 'acl:Control', 'foaf:Agent');
const LITERAL = fc.constantFrom('"x"', '"é\\n"', "'y'", '"""long\n"""', '1', '-2.5', '1e9', 'true', '"x"@en', '"1"^^<http://www.w3.org/2001/XMLSchema#integer>', '"\\u0000"');
const PUNCTUATION = fc.constantFrom('.', ';', ',', '(', ')', '[', ']', '{', '}', '@prefix', 'PREFIX', '=>', '^^', '@base', '"');
const token = fc.oneof({ weight: 4, arbitrary: IRI }, { weight: 2, arbitrary: LITERAL }, { weight: 2, arbitrary: PUNCTUATION });
const tokenSoup = fc.array(token, { maxLength: 30 }).map((tokens) => tokens.join(' '));
const triple = fc.tuple(IRI, IRI, fc.oneof(IRI, LITERAL)).map(([s, p, o]) => `${s} ${p} ${o} .`);
const triples = fc.array(triple, { maxLength: 4 }).map((list) => list.join('\n'));
/** Around the limit of 100 levels, and now and then far past it. */
const nesting = fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 140 }) }, { weight: 1, arbitrary: fc.constantFrom(1000, 2000) });

const PREFIXES = '@prefix ex: <http://ex/>. @prefix acl: <http://www.w3.org/ns/auth/acl#>. @prefix foaf: <http://xmlns.com/foaf/0.1/>. @prefix solid: <http://www.w3.org/ns/solid/terms#>.\n';
const turtle = fc.oneof(
  triples.map((body) => PREFIXES + body),
  tokenSoup.map((body) => PREFIXES + body),
  tokenSoup,
  nesting.map((depth) => `<#a> <http://ex/p> ${'('.repeat(depth)}1${')'.repeat(depth)} .`),
  nesting.map((depth) => `<#a> <http://ex/p> ${'[ <http://ex/p> '.repeat(depth)}1${' ]'.repeat(depth)} .`),
);
const acl = fc
  .tuple(fc.subarray(['acl:Read', 'acl:Write', 'acl:Append', 'acl:Control']), fc.constantFrom('acl:agentClass foaf:Agent', 'acl:agent <https://x.test/#me>', 'acl:agentClass acl:AuthenticatedAgent', 'acl:origin <https://app.test>'), fc.constantFrom('acl:accessTo <./>', 'acl:default <./>', 'acl:accessTo <doc.ttl>', 'acl:default <../>'))
  .map(([modes, who, target]) => `${PREFIXES}<#r> a acl:Authorization; ${who}; ${target}${modes.length ? `; acl:mode ${modes.join(', ')}` : ''}.`);
const jsonLd = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.record({ '@context': fc.constantFrom({ '@vocab': 'http://ex/' }, { p: 'http://ex/p' }, 'https://www.w3.org/ns/solid/notification/v1', { '@base': null }), '@id': fc.constantFrom('#a', '', '_:b', '../x', 'http://other.test/'), p: fc.jsonValue({ maxDepth: 2 }), 'http://ex/q': fc.array(fc.string({ maxLength: 3 }), { maxLength: 5 }) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  nesting.map((depth) => `${'{"http://ex/p":'.repeat(depth)}"x"${'}'.repeat(depth)}`),
  fc.string({ maxLength: 20 }),
);
const n3Patch = fc.oneof(
  fc.tuple(triples, triples, triples).map(([where, deletes, inserts]) => `${PREFIXES}_:p a solid:InsertDeletePatch; solid:where { ${where} }; solid:deletes { ${deletes} }; solid:inserts { ${inserts} }.`),
  fc.tuple(triples, tokenSoup).map(([inserts, soup]) => `${PREFIXES}_:p a solid:InsertDeletePatch; solid:inserts { ${inserts} ${soup} }.`),
  nesting.map((depth) => `${PREFIXES}_:p a solid:InsertDeletePatch; solid:inserts ${'{'.repeat(depth)}${'}'.repeat(depth)}.`),
);
const SPARQL_PREFIXES = 'PREFIX ex: <http://ex/>\nPREFIX acl: <http://www.w3.org/ns/auth/acl#>\nPREFIX foaf: <http://xmlns.com/foaf/0.1/>\n';
const sparql = fc.oneof(
  triples.map((body) => `${SPARQL_PREFIXES}INSERT DATA { ${body} }`),
  triples.map((body) => `${SPARQL_PREFIXES}DELETE DATA { ${body} }`),
  fc.tuple(triples, triples, triples).map(([d, i, w]) => `${SPARQL_PREFIXES}DELETE { ${d} } INSERT { ${i} } WHERE { ${w} }`),
  tokenSoup.map((soup) => `${SPARQL_PREFIXES}INSERT DATA { ${soup} }`),
  nesting.map((depth) => `DELETE { ?s ?p ?o } WHERE ${'{'.repeat(depth)} ?s ?p ?o ${'}'.repeat(depth)}`),
);

const TYPES: [string, fc.Arbitrary<string>][] = [
  ['application/ld+json', jsonLd],
  ['text/turtle', fc.oneof(turtle, acl)],
  ['text/turtle; charset=utf-8', turtle],
  ['application/n-triples', fc.oneof(triples, tokenSoup)],
  ['text/n3', n3Patch],
  ['application/sparql-update', sparql],
  ['application/json', jsonLd],
  ['text/plain', fc.string({ maxLength: 40 })],
  ['', fc.string({ maxLength: 10 })],
  ['garbage/;;==', fc.string({ maxLength: 10 })],
];
const typedBody = fc.constantFrom(...TYPES).chain(([type, body]) => body.map((text) => ({ type, text })));

const headerValue = fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '*/*', 'text/turtle;q=0.5, */*;q=0.1', 'bytes=0-1', 'bytes=5-2', 'bytes=-1,0-', 'application/ld+json', 'text/turtle', '<#a>; rel="type"', '</x>; rel="acl"', '\u00e9'), fc.string({ maxLength: 12 }).filter((text) => /^[\x20-\x7e]*$/.test(text)));
const request = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'),
  path,
  body: typedBody,
  owner: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  headers: fc.dictionary(fc.constantFrom('accept', 'slug', 'if-match', 'if-none-match', 'range', 'link', 'origin'), headerValue, { maxKeys: 3 }),
});

describe('random requests', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = makeApp({ conneg: true, notifications: true });
    const created = await app.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"alice"}' });
    token = (await created.json()).token;
    const auth = { authorization: `Bearer ${token}` };
    await app.request('/alice/public/doc.ttl', { method: 'PUT', headers: { ...auth, 'content-type': 'text/turtle' }, body: '<#a> <http://ex/p> "x" .' });
    await app.request('/alice/public/doc.json', { method: 'PUT', headers: { ...auth, 'content-type': 'application/ld+json' }, body: '{"@id":"#a","http://ex/p":"x"}' });
  });

  const statuses = new Map<number, number>();

  it(`never answers 5xx, and a refused request changes nothing (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, body, owner, headers }) => {
        const init: RequestInit = { method, headers: { ...headers, ...(body.type ? { 'content-type': body.type } : {}), ...(owner ? { authorization: `Bearer ${token}` } : {}) } };
        if (method !== 'GET' && method !== 'HEAD') init.body = body.text;
        const before = await snapshot(app.storage);
        const response = await app.request(path, init);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
        if (response.status >= 400) expect(await snapshot(app.storage), `${method} ${path} answered ${response.status}`).toBe(before);
        // What a write stored must be servable in every form.
        if (response.ok && ['PUT', 'POST', 'PATCH'].includes(method)) {
          const written = response.headers.get('location') ?? new URL(path, 'http://pod.test').href;
          for (const accept of ['application/ld+json', 'text/turtle']) {
            const read = await app.app.fetch(new Request(written, { headers: { accept, authorization: `Bearer ${token}` } }));
            await read.arrayBuffer();
            expect(read.status, `GET ${written} as ${accept} after ${method} ${path}`).toBeLessThan(500);
          }
        }
      }),
      { numRuns: RUNS },
    );
    if (process.env.SVC_FUZZ_RUNS) console.log(`fuzz statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});
