import { describe, expect, it } from 'vitest';
import { NostrKeyStore } from '../../src/idp/nostr-keys.ts';
import { NOSTR_CHALLENGES, NOSTR_KEYS } from '../../src/idp/paths.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { memberNames } from '../support/storage.ts';

const MINUTE = 60_000;
const PUBKEY = 'a'.repeat(64);

describe('NostrKeyStore: expired link challenges are removed from storage', () => {
  it('sweeps challenges never answered once expired, and leaves linked keys alone', async () => {
    const storage = new MemoryDriver();
    let time = Date.now();
    const keys = new NostrKeyStore(storage, () => time, () => {});
    await keys.link(PUBKEY, 'alice');
    const answered = await keys.newChallenge('alice');
    expect(await keys.useChallenge(answered, 'alice')).toBe(true);
    const unanswered = await keys.newChallenge('alice');
    time += 10 * MINUTE + MINUTE;
    const live = await keys.newChallenge('alice');

    expect(await memberNames(storage, NOSTR_CHALLENGES)).toEqual([`${live}.json`]);
    expect(await keys.useChallenge(unanswered, 'alice')).toBe(false);
    expect(await keys.useChallenge(live, 'alice')).toBe(true);
    expect(await memberNames(storage, NOSTR_KEYS)).toEqual([`${PUBKEY}.json`]);
    expect(await keys.accountOf(PUBKEY)).toBe('alice');
  });
});
