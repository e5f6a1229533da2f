import { describe, expect, it } from 'vitest';
import { NostrKeyStore } from '../../src/idp/nostr-keys.ts';
import { ACCOUNT_NOSTR_KEYS, NOSTR_CHALLENGES, NOSTR_KEYS } from '../../src/idp/paths.ts';
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

/** Runs `between` once, after the next read and before its caller goes on: another request's work landing in between. */
class InterleavingDriver extends MemoryDriver {
  between: (() => Promise<unknown>) | undefined;

  override async get(...args: Parameters<MemoryDriver['get']>) {
    const stored = await super.get(...args);
    const between = this.between;
    this.between = undefined;
    await between?.();
    return stored;
  }
}

describe('NostrKeyStore.unlink', () => {
  it('answers false when another unlink deleted the record after it was read', async () => {
    const storage = new InterleavingDriver();
    const keys = new NostrKeyStore(storage, Date.now, () => {});
    await keys.link(PUBKEY, 'alice');
    let other: boolean | undefined;
    storage.between = async () => (other = await keys.unlink(PUBKEY, 'alice'));
    expect(await keys.unlink(PUBKEY, 'alice')).toBe(false);
    expect(other).toBe(true);
    expect(await keys.accountOf(PUBKEY)).toBeNull();
  });

  it('leaves a key linked again meanwhile counted towards --idp-max-nostr-keys', async () => {
    const storage = new InterleavingDriver();
    const keys = new NostrKeyStore(storage, Date.now, () => {});
    await keys.link(PUBKEY, 'alice');
    storage.between = async () => {
      await keys.unlink(PUBKEY, 'alice');
      await keys.link(PUBKEY, 'alice');
    };
    expect(await keys.unlink(PUBKEY, 'alice')).toBe(false);
    expect(await keys.accountOf(PUBKEY)).toBe('alice');
    expect(await memberNames(storage, `${ACCOUNT_NOSTR_KEYS}alice/`)).toEqual([PUBKEY]);
  });
});
