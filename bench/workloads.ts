/**
 * What the benchmark puts in each pod and the requests it measures. Every server gets the same data through
 * the Solid protocol itself (PUT, ACL discovery through `Link: rel="acl"`), so no server is set up by hand.
 */
import type { BenchDpop } from './dpop.ts';
import type { Owner } from './servers.ts';

function profileDocument(): string {
  const doc: Record<string, unknown> = {
    '@context': { schema: 'http://schema.org/', foaf: 'http://xmlns.com/foaf/0.1/' },
    '@id': '#it',
    '@type': 'schema:Person',
    'schema:name': 'Benchmark Person',
    'foaf:nick': 'bench',
    'schema:description': 'A resource of about one kilobyte that the benchmark reads, converts and rewrites.',
    'schema:knows': [],
  };
  const knows = doc['schema:knows'] as Array<Record<string, string>>;
  for (let i = 0; JSON.stringify(doc).length < 980; i++) knows.push({ '@id': `https://friend${i}.example/profile#me`, 'schema:name': `Friend ${i}` });
  return JSON.stringify(doc);
}

/** The ~1 KB JSON-LD body read by the GET workloads, rewritten by PUT, and served by the ceiling. */
export const SMALL_JSON_LD = profileDocument();
/** The small JSON-LD body POST create sends, and what the listed members hold. */
export const POST_BODY = JSON.stringify({ '@context': { schema: 'http://schema.org/' }, '@id': '#it', 'schema:name': 'posted' });
const TURTLE = '@prefix schema: <http://schema.org/>.\n<#it> a schema:Thing; schema:name "patched by the benchmark".\n';
const INSERT_DATA = 'INSERT DATA { <#it> <http://schema.org/alternateName> "bench" . }';
const N3_PATCH = `@prefix solid: <http://www.w3.org/ns/solid/terms#>.
_:patch a solid:InsertDeletePatch; solid:inserts { <#it> <http://schema.org/alternateName> "bench" . }.`;
export const MEMBERS = 1000;

/** URLs the workloads use, all inside the owner's pod. */
export interface Target {
  owner: Owner;
  small: string;
  publicSmall: string;
  container: string;
  put: string;
  posts: string;
  patch: string;
  /** svc only: a WebID of another issuer with Read on the private container, and its DPoP client. */
  dpop?: BenchDpop;
  /** svc with --docdb only: a document under /db/ (owner-only, as the pod's root ACL says). */
  docdb?: string;
}

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  await response.body?.cancel();
  return response;
}

async function put(owner: Owner, url: string, contentType: string, body: string): Promise<void> {
  await expectOk(await fetch(url, { method: 'PUT', headers: { authorization: owner.authorization, 'content-type': contentType }, body }), `PUT ${url}`);
}

/** The ACL URL a server advertises for a resource (Link rel="acl"), resolved against it. */
async function aclOf(owner: Owner, url: string): Promise<string> {
  const response = await expectOk(await fetch(url, { method: 'HEAD', headers: { authorization: owner.authorization } }), `HEAD ${url}`);
  const match = /<([^>]+)>\s*;\s*rel="?acl"?/.exec(response.headers.get('link') ?? '');
  if (!match) throw new Error(`${url} advertises no ACL (Link rel="acl")`);
  return new URL(match[1]!, url).href;
}

/**
 * An ACL document for a container: the owner may do everything, the public only what is listed, and `readers`
 * may read.
 */
export function restrictedAcl(ownerWebId: string, container: string, publicRead: boolean, readers: readonly string[] = []): string {
  const rules = [
    `<#owner> a acl:Authorization; acl:agent <${ownerWebId}>; acl:accessTo <${container}>; acl:default <${container}>; acl:mode acl:Read, acl:Write, acl:Control.`,
    ...readers.map((webId, i) => `<#reader${i}> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <${container}>; acl:default <${container}>; acl:mode acl:Read.`),
  ];
  if (publicRead) rules.push(`<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <${container}>; acl:default <${container}>; acl:mode acl:Read.`);
  return `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n@prefix foaf: <http://xmlns.com/foaf/0.1/>.\n${rules.join('\n')}\n`;
}

/** Gives a container an ACL of its own (restrictedAcl). */
async function restrict(owner: Owner, container: string, publicRead: boolean, readers: readonly string[] = []): Promise<void> {
  await put(owner, await aclOf(owner, container), 'text/turtle', restrictedAcl(owner.webId, container, publicRead, readers));
}

async function inBatches(count: number, width: number, task: (index: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, offset) => task(start + offset)));
  }
}

/**
 * Fills a container with `count` small JSON-LD members, `width` PUTs at a time. Seeding is sequential by
 * default: javascript-solid-server 0.0.81 answers some concurrent PUTs into one pod with 500.
 */
export async function fillContainer(owner: Owner, container: string, count: number, width = 1): Promise<void> {
  await inBatches(count, width, (index) => put(owner, `${container}m${String(index).padStart(5, '0')}.json`, 'application/ld+json', POST_BODY));
}

/**
 * Puts the benchmark's data into the owner's pod and checks that access control is really in the way. With
 * `dpop`, its WebID may read the private container, and one request checks that its token is accepted.
 * `members`: how many the listed container gets (fewer where seeding is slow, as under valgrind).
 */
export async function seedPod(owner: Owner, dpop?: BenchDpop, members = MEMBERS): Promise<Target> {
  const privateDir = `${owner.podUri}bench-private/`;
  const publicDir = `${owner.podUri}bench-public/`;
  const target: Target = {
    owner,
    small: `${privateDir}small.json`,
    publicSmall: `${publicDir}small.json`,
    container: `${privateDir}members/`,
    put: `${privateDir}put.json`,
    posts: `${privateDir}posts/`,
    patch: `${privateDir}patch.ttl`,
    ...(dpop && { dpop }),
  };
  await put(owner, target.small, 'application/ld+json', SMALL_JSON_LD);
  await put(owner, target.publicSmall, 'application/ld+json', SMALL_JSON_LD);
  await restrict(owner, privateDir, false, dpop ? [dpop.webId] : []);
  await restrict(owner, publicDir, true);
  await put(owner, target.put, 'application/ld+json', SMALL_JSON_LD);
  await put(owner, target.patch, 'text/turtle', TURTLE);
  await put(owner, `${target.posts}seed.json`, 'application/ld+json', POST_BODY);
  await fillContainer(owner, target.container, members);

  const anonymous = await fetch(target.small);
  await anonymous.body?.cancel();
  if (anonymous.status !== 401 && anonymous.status !== 403) throw new Error(`anonymous GET of a private resource answered ${anonymous.status}: the ACLs are not in force`);
  await expectOk(await fetch(target.publicSmall), 'anonymous GET of the public resource');
  if (dpop) {
    const headers = { authorization: `DPoP ${dpop.token}`, dpop: dpop.proof('GET', target.small) };
    await expectOk(await fetch(target.small, { headers }), 'GET of the private resource with a DPoP token');
  }
  return target;
}

/** Writes the ~1 KB document the docdb workloads read and overwrite: `/db/<pod>/bench/small`. */
export async function seedDocdb(owner: Owner): Promise<string> {
  const pod = new URL(owner.podUri);
  const url = new URL(`/db${pod.pathname}bench/small`, pod).href;
  await put(owner, url, 'application/ld+json', SMALL_JSON_LD);
  return url;
}

export interface Workload {
  name: string;
  /** Whether a server's target can run it (default: every Solid server). */
  runsOn?(target: Target): boolean;
  /** Headers made anew for every request (a DPoP proof), on top of `headers`. */
  perRequest?(target: Target): Record<string, string>;
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH';
  url(target: Target): string;
  headers(target: Target): Record<string, string>;
  body?: string;
  /** A write: `npm run bench` runs it once per count of `--write-connections`. */
  writes?: boolean;
  /** Connections for this workload instead of `--connections`. */
  connections?: number;
}

const asOwner = (target: Target, extra: Record<string, string> = {}) => ({ authorization: target.owner.authorization, ...extra });

export const WORKLOADS: Workload[] = [
  { name: 'GET small (owner)', method: 'GET', url: (t) => t.small, headers: (t) => asOwner(t, { accept: 'application/ld+json' }) },
  { name: 'GET public (anonymous)', method: 'GET', url: (t) => t.publicSmall, headers: () => ({ accept: 'application/ld+json' }) },
  // No Accept: each server lists in its native form (JSON-LD for svc and jss, Turtle for css).
  { name: `GET ${MEMBERS}-member container`, method: 'GET', url: (t) => t.container, headers: (t) => asOwner(t) },
  { name: 'GET as Turtle (conneg)', method: 'GET', url: (t) => t.small, headers: (t) => asOwner(t, { accept: 'text/turtle' }) },
  { name: 'PUT overwrite', writes: true, method: 'PUT', url: (t) => t.put, headers: (t) => asOwner(t, { 'content-type': 'application/ld+json' }), body: SMALL_JSON_LD },
  { name: 'POST create', writes: true, method: 'POST', url: (t) => t.posts, headers: (t) => asOwner(t, { 'content-type': 'application/ld+json' }), body: POST_BODY },
  { name: 'PATCH N3', writes: true, method: 'PATCH', url: (t) => t.patch, headers: (t) => asOwner(t, { 'content-type': 'text/n3' }), body: N3_PATCH },
  { name: 'PATCH INSERT DATA', writes: true, method: 'PATCH', url: (t) => t.patch, headers: (t) => asOwner(t, { 'content-type': 'application/sparql-update' }), body: INSERT_DATA },
  { name: 'HEAD small (owner)', method: 'HEAD', url: (t) => t.small, headers: (t) => asOwner(t) },
  // svc only: a Solid-OIDC token of another issuer with a fresh DPoP proof per request; after the first request
  // the token's signature, the issuer's keys and the WebID profile come from the caches, the proof never does.
  {
    name: 'GET small (DPoP, reader)',
    method: 'GET',
    runsOn: (t) => t.dpop !== undefined,
    url: (t) => t.small,
    headers: (t) => ({ accept: 'application/ld+json', authorization: `DPoP ${t.dpop!.token}` }),
    perRequest: (t) => ({ dpop: t.dpop!.proof('GET', t.small) }),
  },
  // svc with --docdb: the same document and the same access check, kept in MongoDB (jongodb) instead of a file.
  { name: 'docdb GET (owner)', method: 'GET', runsOn: (t) => t.docdb !== undefined, url: (t) => t.docdb!, headers: (t) => asOwner(t, { accept: 'application/ld+json' }) },
  { name: 'docdb PUT overwrite', method: 'PUT', runsOn: (t) => t.docdb !== undefined, url: (t) => t.docdb!, headers: (t) => asOwner(t, { 'content-type': 'application/ld+json' }), body: SMALL_JSON_LD },
];

/** Each write workload once per connection count, named by it ("PUT overwrite ×1"); reads as they are. */
export function withWriteConnections(workloads: readonly Workload[], counts: readonly number[]): Workload[] {
  return workloads.flatMap((workload) => (workload.writes ? counts.map((connections) => ({ ...workload, name: `${workload.name} ×${connections}`, connections })) : [workload]));
}

/**
 * Disk footprint: `count` small JSON-LD members with extension-less names (`m00000`), as clients that let the
 * name carry no type create them.
 */
export async function fillExtensionless(owner: Owner, container: string, count: number): Promise<void> {
  await inBatches(count, 1, (index) => put(owner, `${container}m${String(index).padStart(5, '0')}`, 'application/ld+json', POST_BODY));
}

/** The workload the ceiling answers: the same body, no storage, no access control. */
export const CEILING_WORKLOAD = WORKLOADS[0]!;
