/**
 * A caller with Append but not Write adds triples with PATCH and changes nothing else: the owner's text stays
 * as it was written (JSON members no RDF reader sees, Turtle comments), with the new triples after it.
 */
import { Parser, Store } from 'n3';
import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl, type PodWorld } from '../wac/pods.ts';

const PUBLIC_APPEND = ownerRule('../#me') + '<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Append.\n';
const PUBLIC_READ_APPEND = ownerRule('../#me') + '<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Append.\n';
const sparql = (body: string): RequestInit => ({ method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body });
const n3Insert = (triples: string): RequestInit => ({
  method: 'PATCH',
  headers: { 'content-type': 'text/n3' },
  body: `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:patch a solid:InsertDeletePatch; solid:inserts { ${triples} }.`,
});

/** Alice's pod with /alice/guestbook/ open to anonymous Append (and Read with `read`), and `doc` in it as written. */
async function guestbook(doc: string, type: string, acl = PUBLIC_APPEND, flags: Record<string, unknown> = {}): Promise<PodWorld & { stored(): Promise<string> }> {
  const world = await podWorld(['alice'], { conneg: true, ...flags });
  expect((await world.as('alice', '/alice/guestbook/.acl', putTurtleAcl(acl))).status).toBe(201);
  expect((await world.as('alice', '/alice/guestbook/doc', { method: 'PUT', headers: { 'content-type': type }, body: doc })).status).toBe(201);
  const stored = async () => new Response((await world.storage.get('/alice/guestbook/doc'))!.body).text();
  return { ...world, stored };
}

const DOC_URL = `${BASE}/alice/guestbook/doc`;
const triplesOf = async (text: string, type: string) => new Store(await parseRdf(text, type, DOC_URL));

describe('PATCH by a caller who may only append', () => {
  it('keeps the JSON members of a JSON-LD document that are no RDF, and adds the triples', async () => {
    const doc = JSON.stringify(
      { '@context': { name: 'http://schema.org/name' }, '@id': '#book', name: 'Guests', appState: { theme: 'dark', order: [3, 1, 2] }, 'x-note': 'kept' },
      null,
      2,
    );
    const world = await guestbook(doc, 'application/ld+json');
    const patched = await world.as(null, '/alice/guestbook/doc', sparql('INSERT DATA { <#entry1> <http://schema.org/text> "hello"@en; <http://schema.org/about> <#book> }'));
    expect(patched.status, await patched.clone().text()).toBe(204);
    const text = await world.stored();
    const json = JSON.parse(text);
    expect(json.appState).toEqual({ theme: 'dark', order: [3, 1, 2] });
    expect(json['x-note']).toBe('kept');
    expect(text.startsWith(doc.slice(0, -1))).toBe(true);
    const triples = await triplesOf(text, 'application/ld+json');
    expect(triples.size).toBe(3);
    expect(triples.has(new Parser().parse(`<${DOC_URL}#entry1> <http://schema.org/text> "hello"@en.`)[0]!)).toBe(true);
  });

  it('adds to a top-level @graph and to a top-level array without touching what is there', async () => {
    const inGraph = JSON.stringify({ '@context': { n: 'http://schema.org/name' }, '@graph': [{ '@id': '#a', n: 'A', custom: 1 }] });
    const graphWorld = await guestbook(inGraph, 'application/ld+json');
    expect((await graphWorld.as(null, '/alice/guestbook/doc', n3Insert('<#b> <http://schema.org/name> "B"'))).status).toBe(204);
    const graphText = await graphWorld.stored();
    expect(JSON.parse(graphText)['@graph'][0]).toEqual({ '@id': '#a', n: 'A', custom: 1 });
    expect((await triplesOf(graphText, 'application/ld+json')).size).toBe(2);

    const array = JSON.stringify([{ '@id': '#a', 'http://schema.org/name': 'A', '@context': { x: 'http://ex/' } }]);
    const arrayWorld = await guestbook(array, 'application/ld+json');
    expect((await arrayWorld.as(null, '/alice/guestbook/doc', n3Insert('<#b> <http://schema.org/name> "B"'))).status).toBe(204);
    const arrayText = await arrayWorld.stored();
    expect(JSON.parse(arrayText)[0]).toEqual(JSON.parse(array)[0]);
    expect((await triplesOf(arrayText, 'application/ld+json')).size).toBe(2);
  });

  it('keeps a Turtle document as written, comments and layout included, with the triples after it', async () => {
    const doc = '@prefix s: <http://schema.org/>.\n# the owner\'s notes, kept\n<#book>   s:name "Guests" .  # trailing comment';
    const world = await guestbook(doc, 'text/turtle');
    expect((await world.as(null, '/alice/guestbook/doc', sparql('INSERT DATA { <#entry1> <http://schema.org/text> "hi" . _:b <http://schema.org/text> "anon" }'))).status).toBe(204);
    const text = await world.stored();
    expect(text.startsWith(doc + '\n')).toBe(true);
    expect((await triplesOf(text, 'text/turtle')).size).toBe(3);
  });

  it('refuses with 409 what cannot be added without rewriting: triples about a blank node of the document', async () => {
    const doc = JSON.stringify({ '@id': '#book', 'http://schema.org/author': { 'http://schema.org/name': 'Alice' } });
    const world = await guestbook(doc, 'application/ld+json', PUBLIC_READ_APPEND);
    const refused = await world.as(null, '/alice/guestbook/doc', sparql('INSERT { ?a <http://schema.org/email> "a@example.org" } WHERE { <#book> <http://schema.org/author> ?a }'));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ type: 'urn:svc:problem:append-needs-write' });
    expect(await world.stored()).toBe(doc);
    // The owner, who may write, can.
    expect((await world.as('alice', '/alice/guestbook/doc', sparql('INSERT { ?a <http://schema.org/email> "a@example.org" } WHERE { <#book> <http://schema.org/author> ?a }'))).status).toBe(204);
  });

  it('refuses with 413 an append that would grow the document past --max-rdf-size, and keeps it', async () => {
    const doc = `<#book> <http://schema.org/name> "${'x'.repeat(15 * 1024)}" .\n`;
    const world = await guestbook(doc, 'text/turtle', PUBLIC_APPEND, { maxRdfSize: '16KB' });
    const refused = await world.as(null, '/alice/guestbook/doc', n3Insert(`<#entry> <http://schema.org/text> "${'y'.repeat(2 * 1024)}"`));
    expect(refused.status).toBe(413);
    expect((await refused.json()).type).toBe('urn:svc:problem:rdf-too-large');
    expect(await world.stored()).toBe(doc);
  });
});
