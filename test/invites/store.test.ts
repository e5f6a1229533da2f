import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, generateInviteCode } from '../../src/invites/codes.ts';
import { INVITES_PATH, InviteStore, inviteState, redeemInvite } from '../../src/invites/store.ts';
import { HttpProblem } from '../../src/http/problem.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(HttpProblem);
  expect((error as HttpProblem).status).toBe(403);
  return (error as HttpProblem).type;
}

describe('invite codes', () => {
  it('are 8 characters from an alphabet without O, 0, I, 1 and L', () => {
    expect(CODE_ALPHABET).not.toMatch(/[O0I1L]/);
    const codes = new Set(Array.from({ length: 500 }, generateInviteCode));
    expect(codes.size).toBe(500);
    for (const code of codes) expect(code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/);
  });
});

describe('invite states', () => {
  it('goes active -> exhausted on the last use, and active or exhausted -> revoked', async () => {
    const storage = new MemoryDriver();
    const store = new InviteStore(storage, () => Date.parse('2026-01-02T03:04:05Z'));
    const invite = await store.create({ maxUses: 2, note: 'two friends' });
    expect(invite).toMatchObject({ maxUses: 2, uses: 0, note: 'two friends', created: '2026-01-02T03:04:05.000Z' });
    expect(inviteState(invite)).toBe('active');

    await store.reserve(invite.code.toLowerCase());
    expect(inviteState((await store.list())[0]!)).toBe('active');
    await store.reserve(invite.code);
    expect(inviteState((await store.list())[0]!)).toBe('exhausted');
    expect(await refusal(store.reserve(invite.code))).toBe('urn:svc:problem:invite-exhausted');

    await store.revoke(invite.code);
    expect(inviteState((await store.list())[0]!)).toBe('revoked');
    expect(await refusal(store.reserve(invite.code))).toBe('urn:svc:problem:invite-revoked');

    const fresh = await store.create();
    await store.revoke(fresh.code);
    expect(await refusal(store.reserve(fresh.code))).toBe('urn:svc:problem:invite-revoked');
    expect(await refusal(store.reserve('NOPE2345'))).toBe('urn:svc:problem:invite-invalid');
    expect(await refusal(store.reserve(undefined))).toBe('urn:svc:problem:invite-invalid');
    expect(await storage.head(INVITES_PATH)).not.toBeNull();
  });

  it('never lets concurrent registrations overuse a code', async () => {
    const store = new InviteStore(new MemoryDriver());
    const { code } = await store.create({ maxUses: 3 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => redeemInvite(store, code, async () => 'created')));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    expect((await store.list())[0]!.uses).toBe(3);
  });

  it('gives the use back when the registration fails', async () => {
    const store = new InviteStore(new MemoryDriver());
    const { code } = await store.create();
    await expect(redeemInvite(store, code, async () => Promise.reject(new Error('name taken')))).rejects.toThrow('name taken');
    expect((await store.list())[0]!.uses).toBe(0);
    expect(await redeemInvite(store, code, async () => 'ok')).toBe('ok');
    expect(inviteState((await store.list())[0]!)).toBe('exhausted');
  });

  it('keeps a change another process wrote in between (compare-and-swap)', async () => {
    const storage = new MemoryDriver();
    const cli = new InviteStore(storage);
    const server = new InviteStore(storage);
    const first = await cli.create();
    const [second] = await Promise.all([cli.create(), server.reserve(first.code)]);
    const invites = await cli.list();
    expect(invites.map((invite) => invite.code).sort()).toEqual([first.code, second.code].sort());
    expect(invites.find((invite) => invite.code === first.code)!.uses).toBe(1);
  });
});
