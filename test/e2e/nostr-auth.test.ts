import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nostrSigner, type NostrSigner } from '../auth/nostr/signer.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { ACL_PREFIXES, ownerRule } from '../wac/pods.ts';

let server: RunningSvc;
let key: NostrSigner;

beforeAll(async () => {
  server = await startSvc(['-q']);
  const created = await fetch(`${server.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  const { token } = (await created.json()) as { token: string };
  key = nostrSigner();
  const acl = ACL_PREFIXES + ownerRule('../#me') + `<#key> a acl:Authorization; acl:agent <${key.did}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.\n`;
  expect((await fetch(`${server.base}/alice/notes/.acl`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body: acl })).status).toBe(201);
});
afterAll(() => server?.stop());

describe('NIP-98 over real HTTP (svc start on Node)', () => {
  it('writes a body whose hash the event signs, reads it back, deletes it, and refuses a changed body', async () => {
    const url = `${server.base}/alice/notes/hello.txt`;
    const body = 'signed words '.repeat(5000);
    const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: key.authorization(url, 'PUT', { body }) }, body });
    expect(put.status).toBe(201);
    const read = await fetch(url, { headers: { authorization: key.authorization(url, 'GET') } });
    expect(await read.text()).toBe(body);
    const changed = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: key.authorization(url, 'PUT', { body }) }, body: 'other words' });
    expect(changed.status).toBe(401);
    expect(changed.headers.get('content-type')).toBe('application/problem+json');
    expect((await fetch(url, { method: 'DELETE', headers: { authorization: key.authorization(url, 'DELETE') } })).status).toBe(204);
  });
});
