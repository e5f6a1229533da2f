/**
 * Reserved names in any spelling (issue 30): on a file system that ignores case or normalises names (macOS,
 * Windows), `doc.ACL` is `doc.acl` and `.QUOTA.JSON` is `.quota.json`. Every such spelling is refused on
 * every disk, so these tests assert the refusals on the memory and the fs driver; test/e2e/casefold-disk
 * replays the attacks on a real case-insensitive view.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readQuotaRecord } from '../../src/quota/record.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE } from '../support/app.ts';
import { memberNames } from '../support/storage.ts';
import { ownerRule, podWorld, putJsonLdAcl, putText, putTurtleAcl } from '../wac/pods.ts';

const DRIVERS: Record<string, () => Promise<StorageDriver>> = {
  memory: async () => new MemoryDriver(),
  fs: async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-reserved-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    return FsDriver.open(root);
  },
};

/** Every stored path with its ETag, containers included: what a refused request must leave as it was. */
async function snapshot(storage: StorageDriver, container = '/'): Promise<string[]> {
  const found: string[] = [];
  for await (const member of storage.list(container)) {
    found.push(`${member.path} ${member.etag}`);
    if (member.isContainer) found.push(...(await snapshot(storage, member.path)));
  }
  return found.sort();
}

async function expectRefused(response: Response, what: string): Promise<void> {
  expect(response.status, what).toBe(400);
  expect(response.headers.get('content-type'), what).toBe('application/problem+json');
  const body = await response.text();
  if (body !== '') expect(JSON.parse(body), what).toMatchObject({ status: 400, type: 'urn:svc:problem:invalid-path' }); // HEAD has none
}

const url = (name: string) => encodeURIComponent(name);

/** Spellings of `.acl` that a folding file system stores as `.acl`: case, Windows' final dots, spaces and streams, ignorables, width. */
const ACL_SPELLINGS = ['.ACL', '.Acl', '.acL', '.acl.', '.acl ', '.acl::$DATA', '.ac\u200cl', '\uff0eacl', '.\uff41cl'];
const QUOTA_SPELLINGS = ['.QUOTA.JSON', '.Quota.Json', '.quota.json.', '.quota.json ', '.quota.json:x', '.quota.j\u017fon', '.quo\u200dta.json', '.quota\uff0ejson'];

const BOB_TAKES_CONTROL = putJsonLdAcl([
  { id: 'bob', agent: `${BASE}/bob/#me`, accessTo: './', default: './', modes: ['Read', 'Write', 'Control'] },
  { id: 'public', public: true, accessTo: './', default: './', modes: ['Write'] },
]);

for (const [driverName, makeDriver] of Object.entries(DRIVERS)) {
  describe(`reserved names in any spelling (${driverName} driver)`, () => {
    const world = async () => {
      const storage = await makeDriver();
      return podWorld(['alice', 'bob'], { defaultQuota: '100KB' }, {}, storage);
    };

    it('keeps an owner from removing their quota: PUT /alice/.QUOTA.JSON and its other spellings are 400', async () => {
      const { as, storage } = await world();
      const before = await readQuotaRecord(storage, '/alice/');
      for (const name of QUOTA_SPELLINGS) {
        await expectRefused(await as('alice', `/alice/${url(name)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"limit":0,"used":0}' }), name);
      }
      expect(await readQuotaRecord(storage, '/alice/')).toEqual(before);
      expect((await as('alice', '/alice/big', putText('x'.repeat(110_000)))).status).toBe(507);
    });

    it('keeps Write from becoming Control: bob with Read+Write gets 400 for PUT /alice/shared/.ACL, 403 for .acl', async () => {
      const { as, storage } = await world();
      const aliceAcl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.\n`;
      expect((await as('alice', '/alice/shared/.acl', putTurtleAcl(aliceAcl))).status).toBe(201);
      const before = await snapshot(storage);
      for (const name of ACL_SPELLINGS) await expectRefused(await as('bob', `/alice/shared/${url(name)}`, BOB_TAKES_CONTROL), name);
      expect((await as('bob', '/alice/shared/.acl', BOB_TAKES_CONTROL)).status).toBe(403);
      expect(await snapshot(storage)).toEqual(before);
      expect((await as('bob', '/alice/shared/.acl')).status).toBe(403);
      expect((await as(null, '/alice/shared/x', putText())).status).toBe(401);
    });

    it('keeps anonymous Append from naming a message an ACL: Slug msg1.ACL gets a fresh name and msg1 stays private', async () => {
      const { as, storage } = await world();
      const post = (slug: string, init: RequestInit) => as(null, '/alice/inbox/', { ...init, method: 'POST', headers: { ...init.headers, slug } });
      expect((await post('msg1', putText('the private message'))).headers.get('location')).toBe(`${BASE}/alice/inbox/msg1`);
      const grant = putJsonLdAcl([{ id: 'public', public: true, accessTo: 'msg1', modes: ['Read'] }]);
      for (const name of ['msg1.ACL', ...ACL_SPELLINGS.map((suffix) => 'msg1' + suffix), 'msg1.acl']) {
        const posted = await post(url(name), grant);
        expect(posted.status, name).toBe(201);
        expect(posted.headers.get('location'), name).toMatch(new RegExp(`^${BASE}/alice/inbox/[0-9a-f-]{36}$`));
      }
      const names = await memberNames(storage, '/alice/inbox/');
      expect(names).toContain('msg1');
      for (const name of names) expect(name).toMatch(/^(msg1|\.acl|[0-9a-f-]{36})$/);
      expect((await as(null, '/alice/inbox/msg1')).status).toBe(401);
    });

    it('keeps containers from taking an ACL name: x.acl/ is 400 and the ACL of x can still be created', async () => {
      const { as, storage } = await world();
      const before = await snapshot(storage);
      for (const path of ['/alice/inbox/x.acl/', '/alice/inbox/x.ACL/', '/alice/inbox/x.acl/inner', '/alice/inbox/.acl/', '/alice/inbox/.acl/inner']) {
        await expectRefused(await as(null, path, path.endsWith('/') ? { method: 'PUT' } : putText()), path);
      }
      expect(await snapshot(storage)).toEqual(before);
      for (const slug of ['x.acl', 'x.ACL', '.acl']) {
        const posted = await as(null, '/alice/inbox/', { method: 'POST', headers: { slug, link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' } });
        expect(posted.status).toBe(201);
        expect(posted.headers.get('location'), slug).toMatch(new RegExp(`^${BASE}/alice/inbox/[0-9a-f-]{36}/$`));
      }
      expect((await as('alice', '/alice/inbox/x', putText())).status).toBe(201);
      expect((await as('alice', '/alice/inbox/x.acl', putTurtleAcl(`<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <x>; acl:mode acl:Read, acl:Write, acl:Control.\n`))).status).toBe(201);
    });

    it('keeps the ACL forms and ordinary names in any case working as before', async () => {
      const { as } = await world();
      expect((await as('alice', '/alice/docs/.acl', putTurtleAcl(ownerRule('../#me')))).status).toBe(201);
      expect((await as('alice', '/alice/docs/doc', putText('doc'))).status).toBe(201);
      const docAcl = `<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <doc>; acl:mode acl:Read, acl:Write, acl:Control.\n<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <doc>; acl:mode acl:Read.\n`;
      expect((await as('alice', '/alice/docs/doc.acl', putTurtleAcl(docAcl))).status).toBe(201);
      expect((await as(null, '/alice/docs/doc')).status).toBe(200);
      for (const path of ['/alice/Photos/IMG_0001.JPG', '/alice/README.md', '/alice/Doc.Acl.txt', '/alice/acl', '/alice/.Aclx', `/alice/${url('caf\u00e9')}`, `/alice/${url('Se\u0301ance')}`, '/alice/.Git-notes', '/alice/.server/x']) {
        expect((await as('alice', path, putText(path))).status, path).toBe(201);
        expect(await (await as('alice', path)).text(), path).toBe(path);
      }
    });

    it('refuses every spelling of every reserved name with 400 on every method, storing nothing', async () => {
      const { as, storage } = await world();
      const before = await snapshot(storage);
      const paths = [
        '/.SERVER/token-key.json', '/.Server/', `/${url('.server.')}/x`, `/${url('.\u017ferver')}/x`,
        '/alice/repo/.GIT/config', '/alice/.Git/', `/alice/${url('.g\u0131t')}/x`, `/alice/${url('.git ')}/x`,
        '/alice/doc.svc-meta', '/alice/doc.SVC-META', '/alice/x.svc-meta/', '/TYPES.SVC-META/x', '/types.svc-meta/x',
        '/alice/.svc-tmp-1', '/alice/.SVC-TMP1', `/alice/${url('.\u017fvc-tmp')}`,
        '/alice/x.acl/', '/alice/x.ACL/y', '/alice/.acl/y', '/alice/doc.ACL', `/alice/${url('doc.acl:x')}`, '/alice/doc.ACL.acl',
        '/alice/.quota.json/', '/alice/.quota.json/x', '/alice/.QUOTA.JSON', `/alice/${url('.quota.json ')}`,
      ];
      const methods: RequestInit[] = [
        { method: 'GET' },
        { method: 'HEAD' },
        { method: 'OPTIONS' },
        { method: 'DELETE' },
        putText('x'),
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
        { method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA { <a> <b> <c> }' },
      ];
      for (const path of paths) {
        for (const init of methods) await expectRefused(await as('alice', path, init), `${init.method} ${path}`);
      }
      expect(await snapshot(storage)).toEqual(before);
    });

    it('gives a Slug that folds into a reserved name a fresh name, for a resource and a container', async () => {
      const { as } = await world();
      const slugs = ['.QUOTA.JSON', '.Quota.Json', 'doc.ACL', 'doc.acl.', '.ACL', 'x.SVC-META', '.Svc-Tmp', '.GIT', url('.quota.json:x'), url('doc\u200c.svc-meta')];
      for (const slug of slugs) {
        for (const container of [false, true]) {
          const headers: Record<string, string> = { slug, 'content-type': 'text/plain' };
          if (container) headers.link = '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"';
          const posted = await as('alice', '/alice/', { method: 'POST', headers, body: container ? undefined : 'x' });
          expect(posted.status, slug).toBe(201);
          expect(posted.headers.get('location'), slug).toMatch(new RegExp(`^${BASE}/alice/[0-9a-f-]{36}${container ? '/' : ''}$`));
        }
      }
    });
  });
}
