import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.ts';
import { ClientStore, UNCONFIRMED_CLIENT_MS } from '../../src/idp/clients.ts';
import { clientRules } from '../../src/idp/first-party.ts';
import { CLIENTS } from '../../src/idp/paths.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

const here = new URL('http://pod.test/idp/reg');
const rules = clientRules(resolveConfig({ flags: { idp: true } }));
const metadata = { redirect_uris: ['https://app.example/callback'], client_name: 'App', token_endpoint_auth_method: 'none' };

describe('clients registered at /idp/reg (anyone may register)', () => {
  it('are forgotten a day after registration unless a user allowed them, so unused ones do not pile up', async () => {
    const storage = new MemoryDriver();
    let time = Date.now();
    const clients = new ClientStore(storage, undefined, () => time, () => undefined, rules);
    const unused = (await clients.register(metadata, here)).client_id as string;
    const allowed = (await clients.register(metadata, here)).client_id as string;
    await clients.confirm(allowed);
    const credentials = await clients.createCredentials('account-1', 'cli');
    time += UNCONFIRMED_CLIENT_MS + 60_000;

    await expect(clients.resolve(unused, here)).rejects.toMatchObject({ status: 401 });
    expect((await clients.resolve(allowed, here)).clientId).toBe(allowed);
    await clients.register(metadata, here);
    expect(await storage.head(`${CLIENTS}${unused}.json`)).toBeNull();
    expect(await storage.head(`${CLIENTS}${allowed}.json`)).not.toBeNull();
    expect((await clients.resolve(credentials.clientId, here)).accountId).toBe('account-1');
  });
});
