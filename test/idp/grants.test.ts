import { describe, expect, it } from 'vitest';
import { GrantStore, type CodeGrant, type PasskeyChallenge } from '../../src/idp/grants.ts';
import { CODES, PASSKEY_CHALLENGES } from '../../src/idp/paths.ts';
import { sha256 } from '../../src/idp/random.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { memberNames } from '../support/storage.ts';

const MINUTE = 60_000;
const CODE: CodeGrant = { clientId: 'app', redirectUri: 'https://app.example/cb', codeChallenge: 'x'.repeat(43), accountId: 'alice', scope: 'openid webid', authTime: 1, epoch: 'epoch-1' };
const CHALLENGE: PasskeyChallenge = { purpose: 'login', browser: 'b'.repeat(43) };

const hashes = (...secrets: string[]) => Promise.all(secrets.map(sha256)).then((found) => found.sort());

/** A grant store on a clock the test moves, starting at the driver's clock (which stamps `modified`). */
function grantStore() {
  const storage = new MemoryDriver();
  let time = Date.now();
  const logs: string[] = [];
  return { storage, logs, grants: new GrantStore(storage, () => time, (line) => logs.push(line)), advance: (ms: number) => (time += ms) };
}

describe('GrantStore: expired one-time grants are removed from storage', () => {
  it('sweeps codes after a minute, passkey challenges after 5 minutes', async () => {
    const { storage, grants, advance } = grantStore();
    const oldCode = await grants.codes.issue(CODE);
    const oldChallenge = await grants.passkeyChallenges.issue(CHALLENGE);
    advance(10 * MINUTE + MINUTE);
    const code = await grants.codes.issue(CODE);
    const challenge = await grants.passkeyChallenges.issue(CHALLENGE);

    expect(await memberNames(storage, CODES)).toEqual(await hashes(code));
    expect(await memberNames(storage, PASSKEY_CHALLENGES)).toEqual(await hashes(challenge));
    expect(await grants.codes.redeem(oldCode)).toBeNull();
    expect(await grants.passkeyChallenges.redeem(oldChallenge)).toBeNull();
    expect(await grants.codes.redeem(code)).toEqual(CODE);
    expect(await memberNames(storage, CODES)).toEqual([]);
  });

  it('sweeps again after the interval, and leaves a malformed record alone, logged once', async () => {
    const { storage, grants, logs, advance } = grantStore();
    await storage.put(`${CODES}malformed`, JSON.stringify({ grant: CODE }), { contentType: 'application/json' });
    const first = await grants.codes.issue(CODE);
    advance(2 * MINUTE);
    // The first pass ran with `first` and found nothing to do: the next is 10 minutes later.
    const second = await grants.codes.issue(CODE);
    expect(await memberNames(storage, CODES)).toEqual([...(await hashes(first, second)), 'malformed'].sort());
    advance(9 * MINUTE);
    const third = await grants.codes.issue(CODE);
    expect(await memberNames(storage, CODES)).toEqual([...(await hashes(third)), 'malformed'].sort());
    advance(11 * MINUTE);
    await grants.codes.issue(CODE);
    expect(await memberNames(storage, CODES)).toContain('malformed');
    expect(logs).toEqual([`expired records: ${CODES}malformed is left alone: it is not a JSON object with a numeric "expires"`]);
  });
});

describe('GrantStore: an authorization code is exchanged once, and its second use revokes what the first issued', () => {
  const noCheck = async () => undefined;

  it('keeps the used code, marked with what it issued, until it expires; a second exchange revokes that', async () => {
    const { storage, grants, advance } = grantStore();
    const code = await grants.codes.issue(CODE);
    const revoked: string[] = [];
    const revoke = async (_: CodeGrant, issued: string) => revoked.push(issued);
    expect(await grants.codes.exchange(code, noCheck, async () => 'family-1', revoke)).toEqual({ grant: CODE, issued: 'family-1' });
    expect(await grants.codes.exchange(code, noCheck, async () => 'family-2', revoke)).toEqual({ refused: 'reused' });
    expect(revoked).toEqual(['family-1']);
    expect(await memberNames(storage, CODES)).toEqual(await hashes(code));

    advance(10 * MINUTE + MINUTE);
    await grants.codes.issue(CODE);
    expect(await memberNames(storage, CODES)).not.toContain((await hashes(code))[0]);
    expect(await grants.codes.exchange(code, noCheck, async () => 'family-3', revoke)).toEqual({ refused: 'unknown' });
  });

  it('a presentation that fails the check neither uses the code nor revokes anything', async () => {
    const { grants } = grantStore();
    const code = await grants.codes.issue(CODE);
    const revoked: string[] = [];
    const revoke = async (_: CodeGrant, issued: string) => revoked.push(issued);
    await grants.codes.exchange(code, noCheck, async () => 'family-1', revoke);
    const refused = grants.codes.exchange(code, async () => Promise.reject(new Error('another client')), async () => 'family-2', revoke);
    await expect(refused).rejects.toThrow('another client');
    expect(revoked).toEqual([]);
  });

  /** A check that lets no exchange on until `count` of them have read the unused code and passed it. */
  function checkedTogether(count: number) {
    let waiting = 0;
    let allChecked!: () => void;
    const barrier = new Promise<void>((resolve) => (allChecked = resolve));
    return async () => {
      if (++waiting === count) allChecked();
      await barrier;
    };
  }

  it('of two concurrent exchanges only the one that claims the code issues; the other is refused and revokes it', async () => {
    const { grants } = grantStore();
    const code = await grants.codes.issue(CODE);
    const issuedIds: string[] = [];
    const revoked: string[] = [];
    const issue = async () => {
      issuedIds.push(`family-${issuedIds.length + 1}`);
      return issuedIds.at(-1)!;
    };
    const revoke = async (_: CodeGrant, issued: string) => revoked.push(issued);
    const check = checkedTogether(2);
    const answers = await Promise.all([grants.codes.exchange(code, check, issue, revoke), grants.codes.exchange(code, check, issue, revoke)]);

    expect(issuedIds).toEqual(['family-1']);
    expect(answers.filter((answer) => 'refused' in answer).length).toBeGreaterThanOrEqual(1);
    expect(answers.every((answer) => 'refused' in answer ? answer.refused === 'reused' : answer.issued === 'family-1')).toBe(true);
    expect(revoked).toEqual(['family-1']);
  });

  it('a second presentation while the first is still issuing makes the first revoke what it issued', async () => {
    const { grants } = grantStore();
    const code = await grants.codes.issue(CODE);
    const revoked: string[] = [];
    const revoke = async (_: CodeGrant, issued: string) => revoked.push(issued);
    let second!: Promise<unknown>;
    const issue = async () => {
      second = grants.codes.exchange(code, noCheck, async () => 'family-2', revoke);
      expect(await second).toEqual({ refused: 'reused' });
      return 'family-1';
    };
    expect(await grants.codes.exchange(code, noCheck, issue, revoke)).toEqual({ refused: 'reused' });
    expect(revoked).toEqual(['family-1']);
    expect(await grants.codes.exchange(code, noCheck, async () => 'family-3', revoke)).toEqual({ refused: 'reused' });
    expect(revoked).toEqual(['family-1']);
  });
});
