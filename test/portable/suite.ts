/**
 * The portable end-to-end suite: plain HTTP against a base URL, nothing else. Every runtime runs it unchanged
 * (test/portable/<runtime>.test.ts start the server as a real process on a loopback port). The server runs
 * with the options every runtime gets from `serverOptions` below: access control on, Turtle conneg on, and
 * the identity provider on, so pod owners get their tokens from it (POST /idp/credentials).
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookiesFrom, hiddenField } from '../idp/support.ts';
import { SoftAuthenticator } from '../idp/soft-authenticator.ts';

/** The options each runtime is started with, as `SVC_*` variables (the one option table on every runtime). */
export const PORTABLE_OPTIONS: Readonly<Record<string, string>> = {
  SVC_CONNEG: 'true',
  SVC_QUIET: 'true',
  // One pod per client IP per day would stop the suite at its second pod; limits have their own tests.
  SVC_RATE_LIMIT: 'false',
  SVC_IDP: 'true',
};

export interface RunningTarget {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  base: string;
  /** Everything the process printed, for failure messages. */
  output(): string;
  stop(): Promise<unknown>;
}

interface Pod {
  name: string;
  webId: string;
  podUri: string;
  token: string;
}

/**
 * How the suite addresses pods: path mode (`<base>/alice/x`), or subdomain mode (`alice.<host>/x`, the
 * server started with --subdomains --base-domain and its base URL on that domain).
 */
export interface PortableMode {
  /** The URL of a path as path mode writes it (`/alice/x`, `/.pods`). */
  urlOf(base: string, path: string): string;
  fetch: typeof fetch;
}

export const PATH_MODE: PortableMode = { urlOf: (base, path) => base + path, fetch: (input, init) => fetch(input, init) };

const TURTLE = 'text/turtle';
const JSON_LD = 'application/ld+json';
const PROBLEM = 'application/problem+json';
const SCHEMA_NAME = 'http://schema.org/name';
const ACL_PREFIXES = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n';

/** Registers the suite for one runtime; `start` launches it, and it is stopped after the last test. */
export function describePortable(runtime: string, start: () => Promise<RunningTarget>, mode: PortableMode = PATH_MODE): void {
  describe(`portable suite on ${runtime}`, () => {
    let target: RunningTarget;
    let base = '';
    let alice: Pod;
    let bob: Pod;
    const fetch = mode.fetch;
    /** The URL of a path-mode path (`/alice/x`) in the mode under test. */
    const at = (path: string) => mode.urlOf(base, path);

    /** A request as a pod owner (with their bearer token) or anonymously (null), to a path-mode path or a URL. */
    const call = (who: Pod | null, path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      if (who) headers.set('authorization', `Bearer ${who.token}`);
      return fetch(path.startsWith('/') ? at(path) : path, { ...init, headers });
    };
    const putText = (who: Pod | null, path: string, body: string, headers: Record<string, string> = {}) =>
      call(who, path, { method: 'PUT', headers: { 'content-type': 'text/plain', ...headers }, body });
    const password = 'portable password';
    const createPod = (name: string) =>
      fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, email: `${name}@example.org`, password }) });
    const logIn = (name: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email: `${name}@example.org`, password }) });

    /** A 4xx answer is application/problem+json; reads the body so the connection is released. */
    async function expectProblem(response: Response, status: number): Promise<void> {
      const body = await response.text();
      expect(response.status, body).toBe(status);
      expect(response.headers.get('content-type')).toBe(PROBLEM);
      expect(JSON.parse(body)).toMatchObject({ status });
    }

    beforeAll(async () => {
      target = await start();
      base = target.base;
      const made: Pod[] = [];
      for (const name of ['alice', 'bob']) {
        const response = await createPod(name);
        const body = await response.text();
        if (response.status !== 201) throw new Error(`creating pod ${name}: ${response.status} ${body}\n${target.output()}`);
        const login = await logIn(name);
        if (login.status !== 200) throw new Error(`logging in as ${name}: ${login.status} ${await login.text()}\n${target.output()}`);
        made.push({ ...(JSON.parse(body) as Omit<Pod, 'token'>), token: ((await login.json()) as { access_token: string }).access_token });
      }
      [alice, bob] = made as [Pod, Pod];
    }, 120_000);

    afterAll(async () => {
      await target?.stop();
    });

    describe('pods and tokens', () => {
      it('creates a pod with a WebID under the server and a token for its owner', () => {
        expect(alice).toMatchObject({ name: 'alice', webId: `${at('/alice/')}#me`, podUri: at('/alice/') });
        expect(alice.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      });

      it('refuses a taken pod name and a malformed request', async () => {
        await expectProblem(await createPod('alice'), 409);
        await expectProblem(await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": ' }), 400);
      });

      it('serves the WebID profile to anyone, with the pod as its storage', async () => {
        const response = await call(null, '/alice/', { headers: { accept: TURTLE } });
        expect(response.status).toBe(200);
        const profile = await (await call(null, '/alice/index.html', { headers: { accept: 'text/html' } })).text();
        expect(profile).toContain('alice');
        await response.arrayBuffer();
      });

      it('accepts the owner token, and refuses a missing or forged one', async () => {
        expect((await putText(alice, '/alice/private/note.txt', 'secret')).status).toBe(201);
        await expectProblem(await call(null, '/alice/private/note.txt'), 401);
        const forged = { ...alice, token: alice.token.slice(0, -4) + 'AAAA' };
        const refused = await call(forged, '/alice/private/note.txt');
        expect(refused.headers.get('www-authenticate')).toMatch(/Bearer/);
        await expectProblem(refused, 401);
        const read = await call(alice, '/alice/private/note.txt');
        expect(await read.text()).toBe('secret');
      });
    });

    describe('identity provider', () => {
      it('publishes its discovery document', async () => {
        const response = await fetch(`${base}/.well-known/openid-configuration`);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ issuer: `${base}/`, token_endpoint: `${base}/idp/token`, jwks_uri: `${base}/idp/jwks` });
      });

      it('logs in at /idp/credentials with a DPoP proof; the DPoP token reads a private resource', async () => {
        const { publicKey, privateKey } = await generateKeyPair('ES256');
        const jwk = await exportJWK(publicKey);
        const proof = (htm: string, htu: string) =>
          new SignJWT({ htm, htu, jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000) }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey);
        const login = await logIn('alice', { dpop: await proof('POST', `${base}/idp/credentials`) });
        expect(login.status).toBe(200);
        const { access_token, token_type, webid } = (await login.json()) as { access_token: string; token_type: string; webid: string };
        expect({ token_type, webid }).toEqual({ token_type: 'DPoP', webid: alice.webId });
        expect(JSON.parse(atob(access_token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).cnf).toEqual({ jkt: await calculateJwkThumbprint(jwk) });
        expect((await putText(alice, '/alice/private/dpop.txt', 'read with DPoP')).status).toBe(201);
        const url = at('/alice/private/dpop.txt');
        const read = await fetch(url, { headers: { authorization: `DPoP ${access_token}`, dpop: await proof('GET', url) } });
        expect(await read.text()).toBe('read with DPoP');
        expect(read.status).toBe(200);
        await expectProblem(await logIn('alice', { dpop: await proof('POST', `${base}/elsewhere`) }), 400);
      });

      it('registers a passkey and logs in with it (WebAuthn verification in the runtime), refusing a replay', async () => {
        let cookies = '';
        const send = async (path: string, init: RequestInit) => {
          const response = await fetch(base + path, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: cookies } });
          cookies = cookiesFrom(response, cookies);
          return response;
        };
        const csrf = hiddenField(await (await send('/idp/auth', {})).text(), 'csrf');
        const loggedIn = await send('/idp/auth', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, email: 'alice@example.org', password }).toString(), redirect: 'manual' });
        expect(loggedIn.status).toBe(303);
        const passkeys = async (path: string, body: Record<string, unknown> = {}) =>
          send(`/idp/passkeys/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrf, ...body }) });
        const authenticator = new SoftAuthenticator(base);
        const created = await passkeys('registration', { name: 'portable', credential: await authenticator.create(await (await passkeys('registration-options')).json()) });
        expect(created.status, await created.clone().text()).toBe(201);
        await created.arrayBuffer();
        cookies = cookies.split('; ').filter((pair) => !pair.startsWith('svc_idp_session=')).join('; ');
        const credential = await authenticator.get(await (await passkeys('login-options')).json());
        const login = await passkeys('login', { credential });
        expect(login.status, await login.clone().text()).toBe(200);
        expect(await login.json()).toEqual({ location: '/idp/account' });
        await expectProblem(await passkeys('login', { credential }), 401);
      });
    });

    describe('web access control', () => {
      it('keeps private/ to its owner: 401 anonymously, 403 for another pod owner', async () => {
        expect((await putText(alice, '/alice/private/diary.txt', 'dear diary')).status).toBe(201);
        await expectProblem(await call(null, '/alice/private/diary.txt'), 401);
        await expectProblem(await call(bob, '/alice/private/diary.txt'), 403);
        await expectProblem(await putText(bob, '/alice/private/diary.txt', 'overwritten'), 403);
        expect(await (await call(alice, '/alice/private/diary.txt')).text()).toBe('dear diary');
      });

      it('lets anyone read public/ but only the owner write there', async () => {
        expect((await putText(alice, '/alice/public/hello.txt', 'hello world')).status).toBe(201);
        expect(await (await call(null, '/alice/public/hello.txt')).text()).toBe('hello world');
        await expectProblem(await putText(null, '/alice/public/hello.txt', 'defaced'), 401);
        await expectProblem(await putText(bob, '/alice/public/hello.txt', 'defaced'), 403);
      });

      it('lets others append to the inbox without reading it', async () => {
        const posted = await call(bob, '/alice/inbox/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'from-bob' }, body: 'hi alice' });
        expect(posted.status).toBe(201);
        await expectProblem(await call(bob, '/alice/inbox/'), 403);
        const location = new URL(posted.headers.get('location')!);
        expect(await (await call(alice, location.href)).text()).toBe('hi alice');
      });

      it('follows an ACL the owner writes: a grant to another WebID allows exactly that mode', async () => {
        expect((await putText(alice, '/alice/private/shared.txt', 'for bob')).status).toBe(201);
        await expectProblem(await call(bob, '/alice/private/shared.txt'), 403);
        const acl = `${ACL_PREFIXES}<#owner> a acl:Authorization; acl:agent <${alice.webId}>; acl:accessTo <./shared.txt>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <${bob.webId}>; acl:accessTo <./shared.txt>; acl:mode acl:Read.\n`;
        await expectProblem(await call(bob, '/alice/private/shared.txt.acl', { method: 'PUT', headers: { 'content-type': TURTLE }, body: acl }), 403);
        const written = await call(alice, '/alice/private/shared.txt.acl', { method: 'PUT', headers: { 'content-type': TURTLE }, body: acl });
        expect(written.status).toBe(201);
        expect(await (await call(bob, '/alice/private/shared.txt')).text()).toBe('for bob');
        await expectProblem(await putText(bob, '/alice/private/shared.txt', 'changed by bob'), 403);
        await expectProblem(await call(null, '/alice/private/shared.txt'), 401);
      });
    });

    describe('methods', () => {
      it('PUT creates (201) and replaces (204); GET returns the body and content type', async () => {
        const created = await putText(alice, '/alice/private/m/put.txt', 'first');
        expect(created.status).toBe(201);
        expect(created.headers.get('location')).toBe(at('/alice/private/m/put.txt'));
        expect((await putText(alice, '/alice/private/m/put.txt', 'second')).status).toBe(204);
        const read = await call(alice, '/alice/private/m/put.txt');
        expect(read.headers.get('content-type')).toBe('text/plain');
        expect(await read.text()).toBe('second');
        const head = await call(alice, '/alice/private/m/put.txt', { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.headers.get('etag')).toBe(read.headers.get('etag'));
      });

      it('POST creates a member named by Slug and answers its Location', async () => {
        const doc = { '@id': '#it', [SCHEMA_NAME]: 'Posted' };
        const posted = await call(alice, '/alice/private/m/', { method: 'POST', headers: { 'content-type': JSON_LD, slug: 'posted' }, body: JSON.stringify(doc) });
        expect(posted.status).toBe(201);
        expect(posted.headers.get('location')).toBe(at('/alice/private/m/posted'));
        const again = await call(alice, '/alice/private/m/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'posted' }, body: 'second' });
        expect(again.status).toBe(201);
        expect(again.headers.get('location')).not.toBe(at('/alice/private/m/posted'));
        const read = await call(alice, '/alice/private/m/posted', { headers: { accept: JSON_LD } });
        expect(JSON.stringify(await read.json())).toContain('Posted');
      });

      it('refuses invalid JSON-LD with a problem and keeps what was there', async () => {
        await expectProblem(await call(alice, '/alice/private/m/posted', { method: 'PUT', headers: { 'content-type': JSON_LD }, body: '{"@id": ' }), 400);
        expect((await call(alice, '/alice/private/m/posted')).status).toBe(200);
      });

      it('PATCH applies N3 Patch and SPARQL Update to an RDF resource', async () => {
        const start = `@prefix ex: <http://example.org/>.\n<#a> ex:name "Alice"; ex:age 30.\n`;
        expect((await call(alice, '/alice/private/m/doc.ttl', { method: 'PUT', headers: { 'content-type': TURTLE }, body: start })).status).toBe(201);
        const n3 = '@prefix solid: <http://www.w3.org/ns/solid/terms#>. @prefix ex: <http://example.org/>.\n_:p a solid:InsertDeletePatch; solid:deletes { <#a> ex:age 30. }; solid:inserts { <#a> ex:age 31. }.';
        expect((await call(alice, '/alice/private/m/doc.ttl', { method: 'PATCH', headers: { 'content-type': 'text/n3' }, body: n3 })).status).toBe(204);
        const sparql = 'PREFIX ex: <http://example.org/>\nINSERT DATA { <#a> ex:likes "tea" }';
        expect((await call(alice, '/alice/private/m/doc.ttl', { method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body: sparql })).status).toBe(204);
        const turtle = await (await call(alice, '/alice/private/m/doc.ttl', { headers: { accept: 'application/n-triples' } })).text();
        const triples = turtle.trim().split('\n').sort();
        const me = `<${at('/alice/private/m/doc.ttl')}#a>`;
        expect(triples).toEqual([`${me} <http://example.org/age> "31"^^<http://www.w3.org/2001/XMLSchema#integer> .`, `${me} <http://example.org/likes> "tea" .`, `${me} <http://example.org/name> "Alice" .`].sort());
        await expectProblem(await call(alice, '/alice/private/m/doc.ttl', { method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <#a> ' }), 400);
        await expectProblem(await call(bob, '/alice/private/m/doc.ttl', { method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body: sparql }), 403);
      });

      it('serves the graph of an HTML page (RDFa and a JSON-LD island) as Turtle, and the page as stored', async () => {
        const page = `<html><head><script type="application/ld+json">{"@id": "#me", "http://xmlns.com/foaf/0.1/nick": "ali"}</script></head>
<body><p about="#me" property="${SCHEMA_NAME}">Alice</p></body></html>`;
        expect((await call(alice, '/alice/private/m/page.html', { method: 'PUT', headers: { 'content-type': 'text/html' }, body: page })).status).toBe(201);
        expect(await (await call(alice, '/alice/private/m/page.html', { headers: { accept: 'text/html' } })).text()).toBe(page);
        const graph = await call(alice, '/alice/private/m/page.html', { headers: { accept: 'application/n-triples' } });
        expect(graph.headers.get('content-type')).toContain('application/n-triples');
        const me = `<${at('/alice/private/m/page.html')}#me>`;
        expect((await graph.text()).trim().split('\n').sort()).toEqual([`${me} <${SCHEMA_NAME}> "Alice" .`, `${me} <http://xmlns.com/foaf/0.1/nick> "ali" .`]);
      });

      it('DELETE removes a resource (204, then 404) and refuses a non-empty container (409)', async () => {
        expect((await putText(alice, '/alice/private/d/x.txt', 'x')).status).toBe(201);
        await expectProblem(await call(alice, '/alice/private/d/', { method: 'DELETE' }), 409);
        await expectProblem(await call(bob, '/alice/private/d/x.txt', { method: 'DELETE' }), 403);
        expect((await call(alice, '/alice/private/d/x.txt', { method: 'DELETE' })).status).toBe(204);
        await expectProblem(await call(alice, '/alice/private/d/x.txt'), 404);
        expect((await call(alice, '/alice/private/d/', { method: 'DELETE' })).status).toBe(204);
        await expectProblem(await call(alice, '/alice/private/d/'), 404);
      });
    });

    describe('content negotiation', () => {
      it('serves JSON-LD as Turtle, and Turtle as JSON-LD, with the same statements', async () => {
        const doc = { '@context': { name: SCHEMA_NAME }, '@id': '#me', name: 'Conneg' };
        expect((await call(alice, '/alice/public/card', { method: 'PUT', headers: { 'content-type': JSON_LD }, body: JSON.stringify(doc) })).status).toBe(201);
        const asTurtle = await call(null, '/alice/public/card', { headers: { accept: TURTLE } });
        expect(asTurtle.headers.get('content-type')).toMatch(/^text\/turtle/);
        expect(await asTurtle.text()).toMatch(/"Conneg"/);
        const asJsonLd = await call(null, '/alice/public/card', { headers: { accept: JSON_LD } });
        expect(asJsonLd.headers.get('content-type')).toMatch(/^application\/ld\+json/);
        expect(JSON.stringify(await asJsonLd.json())).toContain('Conneg');

        const turtle = `<#me> <${SCHEMA_NAME}> "From Turtle".`;
        expect((await call(alice, '/alice/public/card.ttl', { method: 'PUT', headers: { 'content-type': TURTLE }, body: turtle })).status).toBe(201);
        const converted = await call(null, '/alice/public/card.ttl', { headers: { accept: JSON_LD } });
        expect(converted.headers.get('content-type')).toMatch(/^application\/ld\+json/);
        expect(JSON.stringify(await converted.json())).toContain('From Turtle');
        const vary = (await call(null, '/alice/public/card.ttl', { method: 'HEAD', headers: { accept: TURTLE } })).headers.get('vary') ?? '';
        expect(vary.toLowerCase()).toContain('accept');
      });

      it('answers 406 when no offered type is acceptable for an RDF resource', async () => {
        await expectProblem(await call(null, '/alice/public/card', { headers: { accept: 'image/png' } }), 406);
      });
    });

    describe('conditional requests', () => {
      it('answers 304 to a matching If-None-Match and 200 once the resource changed', async () => {
        const created = await putText(alice, '/alice/private/c/doc.txt', 'v1');
        expect(created.status).toBe(201);
        const etag = (await call(alice, '/alice/private/c/doc.txt', { method: 'HEAD' })).headers.get('etag')!;
        expect(etag).toMatch(/^(W\/)?"/);
        expect((await call(alice, '/alice/private/c/doc.txt', { headers: { 'if-none-match': etag } })).status).toBe(304);
        expect((await putText(alice, '/alice/private/c/doc.txt', 'v2')).status).toBe(204);
        const changed = await call(alice, '/alice/private/c/doc.txt', { headers: { 'if-none-match': etag } });
        expect(changed.status).toBe(200);
        expect(await changed.text()).toBe('v2');
      });

      it('guards writes with If-Match and If-None-Match: *', async () => {
        const etag = (await call(alice, '/alice/private/c/doc.txt', { method: 'HEAD' })).headers.get('etag')!;
        expect((await putText(alice, '/alice/private/c/doc.txt', 'v3', { 'if-match': etag })).status).toBe(204);
        await expectProblem(await putText(alice, '/alice/private/c/doc.txt', 'lost update', { 'if-match': etag }), 412);
        await expectProblem(await putText(alice, '/alice/private/c/doc.txt', 'create only', { 'if-none-match': '*' }), 412);
        expect((await putText(alice, '/alice/private/c/fresh.txt', 'create only', { 'if-none-match': '*' })).status).toBe(201);
        expect(await (await call(alice, '/alice/private/c/doc.txt')).text()).toBe('v3');
      });
    });

    describe('containers', () => {
      it('lists direct members with ldp:contains, and the listing ETag follows its members', async () => {
        expect((await putText(alice, '/alice/public/list/a.txt', 'a')).status).toBe(201);
        expect((await putText(alice, '/alice/public/list/sub/b.txt', 'b')).status).toBe(201);
        const listing = await call(null, '/alice/public/list/', { headers: { accept: TURTLE } });
        expect(listing.status).toBe(200);
        expect(listing.headers.get('link')).toMatch(/BasicContainer/);
        const etag = listing.headers.get('etag')!;
        const turtle = await listing.text();
        expect(turtle).toMatch(/contains/);
        expect(turtle).toContain('a.txt');
        expect(turtle).toContain('sub/');
        expect(turtle).not.toContain('b.txt');

        const asJsonLd = JSON.stringify(await (await call(null, '/alice/public/list/', { headers: { accept: JSON_LD } })).json());
        expect(asJsonLd).toContain(at('/alice/public/list/a.txt'));

        expect((await call(null, '/alice/public/list/', { headers: { accept: TURTLE, 'if-none-match': etag } })).status).toBe(304);
        expect((await putText(alice, '/alice/public/list/c.txt', 'c')).status).toBe(201);
        const changed = await call(null, '/alice/public/list/', { headers: { accept: TURTLE, 'if-none-match': etag } });
        expect(changed.status).toBe(200);
        expect(await changed.text()).toContain('c.txt');
      });
    });

    describe('remoteStorage', () => {
      it('writes, lists with propagating folder ETags, reads publicly under public/, and deletes with empty folders', async () => {
        const written = await putText(alice, '/storage/alice/notes/day/a.txt', 'a');
        expect(written.status).toBe(201);
        const rootTag = (await call(alice, '/storage/alice/')).headers.get('etag');
        expect(await (await call(alice, '/alice/remotestorage/notes/day/a.txt')).text()).toBe('a');
        const listing = (await (await call(alice, '/storage/alice/notes/day/')).json()) as { items: Record<string, { ETag: string; 'Content-Type': string }> };
        expect(`"${listing.items['a.txt']!.ETag}"`).toBe(written.headers.get('etag'));
        expect(listing.items['a.txt']!['Content-Type']).toBe('text/plain');
        expect((await putText(alice, '/storage/alice/notes/day/a.txt', 'b')).status).toBe(200);
        expect((await call(alice, '/storage/alice/')).headers.get('etag')).not.toBe(rootTag);

        expect((await putText(alice, '/storage/alice/public/notes/p.txt', 'p')).status).toBe(201);
        expect(await (await call(null, '/storage/alice/public/notes/p.txt')).text()).toBe('p');
        expect((await call(null, '/storage/alice/public/notes/')).status).toBe(401);
        expect((await call(bob, '/storage/alice/notes/day/a.txt')).status).toBe(403);

        expect((await call(alice, '/storage/alice/notes/day/a.txt', { method: 'DELETE' })).status).toBe(200);
        expect((await call(alice, '/alice/remotestorage/notes/day/', { method: 'HEAD' })).status).toBe(404);
      });
    });
  });
}
