import { describe, expect, it } from 'vitest';
import { InviteStore } from '../../src/invites/store.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';

const createPod = (fields: Record<string, unknown>) => ({ method: 'POST', body: JSON.stringify(fields), headers: { 'Content-Type': 'application/json' } });

async function inviteOnlyServer(maxUses = 1) {
  const storage = new MemoryDriver();
  const store = new InviteStore(storage);
  const { code } = await store.create({ maxUses });
  return { ...makeApp({ inviteOnly: true }, storage), store, code };
}

async function problemType(response: Response): Promise<string> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return ((await response.json()) as { type: string }).type;
}

describe('POST /.pods with --invite-only', () => {
  it('needs a valid code and uses it up', async () => {
    const { request, store, code } = await inviteOnlyServer();
    const missing = await request('/.pods', createPod({ name: 'alice' }));
    expect(missing.status).toBe(403);
    expect(await problemType(missing)).toBe('urn:svc:problem:invite-invalid');
    const wrong = await request('/.pods', createPod({ name: 'alice', invite: 'ABCDEFGH' }));
    expect(await problemType(wrong)).toBe('urn:svc:problem:invite-invalid');

    expect((await request('/.pods', createPod({ name: 'alice', invite: code }))).status).toBe(201);
    const again = await request('/.pods', createPod({ name: 'bob', invite: code }));
    expect(again.status).toBe(403);
    expect(await problemType(again)).toBe('urn:svc:problem:invite-exhausted');
    expect((await store.list())[0]!.uses).toBe(1);
  });

  it('refuses a revoked code with its own problem type', async () => {
    const { request, store, code } = await inviteOnlyServer(5);
    await store.revoke(code);
    const response = await request('/.pods', createPod({ name: 'alice', invite: code }));
    expect(response.status).toBe(403);
    expect(await problemType(response)).toBe('urn:svc:problem:invite-revoked');
  });

  it('does not consume a use when the registration fails', async () => {
    const { request, store, code } = await inviteOnlyServer(2);
    expect((await request('/.pods', createPod({ name: 'alice', invite: code }))).status).toBe(201);
    expect((await request('/.pods', createPod({ name: 'alice', invite: code }))).status).toBe(409);
    expect((await request('/.pods', createPod({ name: 'Not Valid', invite: code }))).status).toBe(400);
    expect((await store.list())[0]!.uses).toBe(1);
    expect((await request('/.pods', createPod({ name: 'bob', invite: code }))).status).toBe(201);
  });

  it('lets exactly maxUses of many concurrent registrations through', async () => {
    const { request, store, code } = await inviteOnlyServer(2);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => request('/.pods', createPod({ name: `user${i}`, invite: code }))));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(2);
    expect(statuses.filter((status) => status === 403)).toHaveLength(8);
    expect((await store.list())[0]!.uses).toBe(2);
  });

  it('needs no code when the server is open', async () => {
    const { request } = makeApp();
    expect((await request('/.pods', createPod({ name: 'alice' }))).status).toBe(201);
  });
});
