import {
  buildThing,
  createSolidDataset,
  createThing,
  getContainedResourceUrlAll,
  getFile,
  getSolidDataset,
  getStringNoLocale,
  getThing,
  overwriteFile,
  saveSolidDatasetAt,
  setThing,
} from '@inrupt/solid-client';
import * as rdf from 'rdflib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, startSvc, type RunningSvc } from '../support/server.ts';

const PIM = 'http://www.w3.org/ns/pim/space#';
const SOLID = 'http://www.w3.org/ns/solid/terms#';
const SCHEMA_NAME = 'http://schema.org/name';

interface CreatedPod {
  name: string;
  webId: string;
  podUri: string;
  token: string;
}

let svc: RunningSvc;
let alice: CreatedPod;

async function createPod(base: string, name: string): Promise<CreatedPod> {
  const response = await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedPod;
}

/** A fetch that authenticates every request with a bearer token, as a client library expects to be given. */
function authenticatedFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

beforeAll(async () => {
  // --conneg: the Inrupt client reads and writes Turtle.
  svc = await startSvc(['-q', '--conneg']);
  alice = await createPod(svc.base, 'alice');
});

afterAll(async () => {
  await svc?.stop();
});

describe('pods over real HTTP', () => {
  it('creates a pod whose token works, and whose private data stays private', async () => {
    expect(alice.webId).toBe(`${svc.base}/alice/#me`);
    const put = await fetch(`${alice.podUri}private/note.txt`, { method: 'PUT', headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'text/plain' }, body: 'secret' });
    expect(put.status).toBe(201);
    expect((await fetch(`${alice.podUri}private/note.txt`)).status).toBe(401);
    const bob = await createPod(svc.base, 'bob');
    expect((await fetch(`${alice.podUri}private/note.txt`, { headers: { authorization: `Bearer ${bob.token}` } })).status).toBe(403);
    const read = await fetch(`${alice.podUri}private/note.txt`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(await read.text()).toBe('secret');
  });

  it('works under localhost as under 127.0.0.1', async () => {
    const local = svc.base.replace('127.0.0.1', 'localhost');
    const response = await fetch(`${local}/alice/private/`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(response.status).toBe(200);
  });

  it('`svc token <pod>` prints a fresh token signed with the same key', async () => {
    const { code, stdout, stderr } = await runSvc(['token', 'alice', '-r', svc.root]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const response = await fetch(`${alice.podUri}private/`, { headers: { authorization: `Bearer ${stdout.trim()}` } });
    expect(response.status).toBe(200);
    expect((await runSvc(['token', 'nobody', '-r', svc.root])).code).toBe(1);
  });
});

describe('interop with Solid client libraries', () => {
  it('rdflib loads the WebID profile and finds the storage', async () => {
    const store = rdf.graph();
    const fetcher = new rdf.Fetcher(store, { fetch: globalThis.fetch });
    await fetcher.load(alice.webId);
    const me = rdf.sym(alice.webId);
    expect(store.any(me, rdf.sym(PIM + 'storage'))?.value).toBe(alice.podUri);
    expect(store.any(me, rdf.sym(SOLID + 'storage'))?.value).toBe(alice.podUri);
  });

  it('@inrupt/solid-client writes, reads and lists with the bearer token', async () => {
    const authFetch = authenticatedFetch(alice.token);
    const url = `${alice.podUri}public/books/dune`;
    const thing = buildThing(createThing({ name: 'book' })).addStringNoLocale(SCHEMA_NAME, 'Dune').build();
    await saveSolidDatasetAt(url, setThing(createSolidDataset(), thing), { fetch: authFetch });

    const dataset = await getSolidDataset(url, { fetch: authFetch });
    expect(getStringNoLocale(getThing(dataset, `${url}#book`)!, SCHEMA_NAME)).toBe('Dune');

    await overwriteFile(`${alice.podUri}public/books/cover.txt`, new Blob(['a desert planet'], { type: 'text/plain' }), { contentType: 'text/plain', fetch: authFetch });
    expect(await (await getFile(`${alice.podUri}public/books/cover.txt`, { fetch: authFetch })).text()).toBe('a desert planet');

    const listing = await getSolidDataset(`${alice.podUri}public/books/`, { fetch: authFetch });
    expect(getContainedResourceUrlAll(listing).sort()).toEqual([`${alice.podUri}public/books/cover.txt`, url]);

    // public/ is readable by anyone, without the token.
    expect(getStringNoLocale(getThing(await getSolidDataset(url), `${url}#book`)!, SCHEMA_NAME)).toBe('Dune');
    await expect(getSolidDataset(`${alice.podUri}private/`)).rejects.toThrow(/401/);
  });
});
