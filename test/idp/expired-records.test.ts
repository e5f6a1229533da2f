import { describe, expect, it } from 'vitest';
import { ExpiredRecords } from '../../src/idp/expired-records.ts';
import type { StorageDriver, StoredBody } from '../../src/storage/types.ts';
import { wrapWrites } from '../../src/storage/wrap.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { memberNames } from '../support/storage.ts';

const CONTAINER = '/.server/test-records/';
const MINUTE = 60_000;
const LIFETIME = 10 * MINUTE;
/** Past the lifetime of a record written just now: the driver stamped `modified` a little after the clock started. */
const PAST_LIFETIME = LIFETIME + MINUTE;

/** A clock the test moves; it starts at the driver's clock, which stamps `modified`. */
function clock() {
  let time = Date.now();
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

const put = (storage: StorageDriver, name: string, body: string) => storage.put(CONTAINER + name, body, { contentType: 'application/json' });
const record = (storage: StorageDriver, name: string, expires: number) => put(storage, name, JSON.stringify({ grant: { clientId: 'c' }, expires }));

const names = (storage: StorageDriver) => memberNames(storage, CONTAINER);

describe('ExpiredRecords', () => {
  it('deletes the expired records and leaves live records, containers and malformed members alone', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    const logs: string[] = [];
    const sweeper = new ExpiredRecords(storage, CONTAINER, time.now, (line) => logs.push(line), { lifetimeMs: LIFETIME });
    await record(storage, 'expired-a', time.now() + LIFETIME);
    await record(storage, 'expired-b', time.now() + 1);
    await record(storage, 'live', time.now() + 3 * LIFETIME);
    await put(storage, 'not-json', 'plain text');
    await put(storage, 'no-expires', JSON.stringify({ grant: {} }));
    await put(storage, 'expires-text', JSON.stringify({ expires: 'yesterday' }));
    await storage.createContainer(`${CONTAINER}nested/`);
    time.advance(2 * LIFETIME);

    expect(await sweeper.sweep()).toEqual({ read: 6, deleted: 2, finished: true });
    expect(await names(storage)).toEqual(['expires-text', 'live', 'nested/', 'no-expires', 'not-json']);
    expect(logs).toHaveLength(3);
    expect(logs.join('\n')).toContain(`${CONTAINER}not-json is left alone`);

    await sweeper.sweep();
    expect(logs).toHaveLength(3);
    time.advance(2 * LIFETIME);
    expect(await sweeper.sweep()).toMatchObject({ deleted: 1 });
    expect(await names(storage)).toEqual(['expires-text', 'nested/', 'no-expires', 'not-json']);
  });

  it('does not read records younger than their lifetime', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    const sweeper = new ExpiredRecords(storage, CONTAINER, time.now, () => {}, { lifetimeMs: LIFETIME });
    await record(storage, 'young', time.now() + LIFETIME);
    time.advance(LIFETIME / 2);
    expect(await sweeper.sweep()).toEqual({ read: 0, deleted: 0, finished: true });
    expect(await names(storage)).toEqual(['young']);
  });

  it('reads at most its budget per pass, and the next pass goes on where it stopped', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    const sweeper = new ExpiredRecords(storage, CONTAINER, time.now, () => {}, { lifetimeMs: LIFETIME, budget: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) await record(storage, name, time.now() + LIFETIME);
    await put(storage, 'b-malformed', '{');
    time.advance(PAST_LIFETIME);

    expect(await sweeper.sweep()).toEqual({ read: 2, deleted: 2, finished: false });
    expect(await names(storage)).toEqual(['b-malformed', 'c', 'd', 'e']);
    expect(await sweeper.sweep()).toEqual({ read: 2, deleted: 1, finished: false });
    expect(await names(storage)).toEqual(['b-malformed', 'd', 'e']);
    expect(await sweeper.sweep()).toEqual({ read: 2, deleted: 2, finished: true });
    expect(await names(storage)).toEqual(['b-malformed']);
    expect(await sweeper.sweep()).toEqual({ read: 1, deleted: 0, finished: true });
  });

  it('works off a backlog from one listing, not a listing per pass', async () => {
    let listings = 0;
    const storage = new (class extends MemoryDriver {
      override list(container: string) {
        listings++;
        return super.list(container);
      }
    })();
    const time = clock();
    const sweeper = new ExpiredRecords(storage, CONTAINER, time.now, () => {}, { lifetimeMs: LIFETIME, budget: 3 });
    for (let index = 0; index < 10; index++) await record(storage, `r${index}`, time.now() + LIFETIME);
    time.advance(PAST_LIFETIME);

    const passes = [];
    for (let pass = 0; pass < 4; pass++) passes.push(await sweeper.sweep());
    expect(passes.map((pass) => pass.deleted)).toEqual([3, 3, 3, 1]);
    expect(passes.at(-1)!.finished).toBe(true);
    expect(listings).toBe(1);
    expect(await names(storage)).toEqual([]);
  });

  it('sweeps when due: once per interval after a finished pass, at once after an unfinished one', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    const sweeper = new ExpiredRecords(storage, CONTAINER, time.now, () => {}, { lifetimeMs: LIFETIME, budget: 2, intervalMs: 3 * LIFETIME });
    for (const name of ['a', 'b', 'c']) await record(storage, name, time.now() + LIFETIME);
    time.advance(PAST_LIFETIME);

    await sweeper.sweepIfDue();
    expect(await names(storage)).toEqual(['c']);
    await sweeper.sweepIfDue();
    expect(await names(storage)).toEqual([]);

    await record(storage, 'd', time.now() + LIFETIME);
    time.advance(PAST_LIFETIME);
    await sweeper.sweepIfDue();
    expect(await names(storage)).toEqual(['d']);
    time.advance(2 * LIFETIME);
    await sweeper.sweepIfDue();
    expect(await names(storage)).toEqual([]);
  });

  it('leaves a record that changed between its read and the delete', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    // Another writer replaces the record right after the sweeper read it: the conditional delete must fail.
    const racing: StorageDriver = {
      ...wrapWrites(storage, storage),
      async get(path: string): Promise<StoredBody | null> {
        const stored = await storage.get(path);
        await record(storage, 'raced', time.now() + 3 * LIFETIME);
        return stored;
      },
    };
    const sweeper = new ExpiredRecords(racing, CONTAINER, time.now, () => {}, { lifetimeMs: LIFETIME });
    await record(storage, 'raced', time.now() + LIFETIME);
    time.advance(PAST_LIFETIME);
    expect(await sweeper.sweep()).toEqual({ read: 1, deleted: 0, finished: true });
    expect(await names(storage)).toEqual(['raced']);
  });

  it('logs a failed pass instead of throwing it', async () => {
    const storage = new MemoryDriver();
    const time = clock();
    const logs: string[] = [];
    const failing: StorageDriver = {
      ...wrapWrites(storage, storage),
      list(): AsyncIterable<never> {
        throw new Error('the disk is gone');
      },
    };
    const sweeper = new ExpiredRecords(failing, CONTAINER, time.now, (line) => logs.push(line), { lifetimeMs: LIFETIME });
    await sweeper.sweepIfDue();
    expect(logs).toEqual([`expired records: sweeping ${CONTAINER} failed: the disk is gone`]);
  });

  it('sweeps nothing when the container does not exist', async () => {
    const sweeper = new ExpiredRecords(new MemoryDriver(), CONTAINER, Date.now, () => {}, { lifetimeMs: LIFETIME });
    expect(await sweeper.sweep()).toEqual({ read: 0, deleted: 0, finished: true });
  });
});
