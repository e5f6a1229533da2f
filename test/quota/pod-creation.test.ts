import { describe, expect, it } from 'vitest';
import { measurePodUsage, readQuotaRecord } from '../../src/quota/record.ts';
import { makeApp } from '../support/app.ts';

const createPod = (name: string) => ({ method: 'POST', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' } });

describe('quota of a new pod', () => {
  it('gets --default-quota, counts the skeleton, and refuses writes past the limit with 507', async () => {
    const { request, storage } = makeApp({ defaultQuota: '64KB' });
    const created = await request('/.pods', createPod('alice'));
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const record = (await readQuotaRecord(storage, '/alice/'))!.record;
    expect(record.limit).toBe(65536);
    expect(record.used).toBeGreaterThan(0);
    expect(record.used).toBe(await measurePodUsage(storage, '/alice/'));

    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' };
    const free = record.limit - record.used;
    expect((await request('/alice/private/big', { method: 'PUT', body: 'x'.repeat(free + 1), headers: auth })).status).toBe(507);
    expect((await request('/alice/private/fits', { method: 'PUT', body: 'x'.repeat(free), headers: auth })).status).toBe(201);
    expect((await readQuotaRecord(storage, '/alice/'))!.record.used).toBe(record.limit);
  });
});
