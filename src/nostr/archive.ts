/**
 * With --nostr-persist: each stored event is one small JSON file under `/.server/nostr/events/` in the
 * resource storage (never served over HTTP; on a single-user server counted in the pod's quota, see
 * QuotaScope), so the relay reads its events back after a restart. One file per event keeps each publish,
 * eviction and deletion a single write.
 */
import { KeyedLock } from '../storage/keyed-lock.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import { shapeProblem, type NostrEvent } from './event.ts';
import type { EventArchive } from './relay.ts';

export const ARCHIVE_CONTAINER = '/.server/nostr/events/';

interface ArchivedEvent {
  /** Order of arrival, so eviction after a restart still takes the earliest received first. */
  received: number;
  event: NostrEvent;
}

const pathOf = (id: string) => `${ARCHIVE_CONTAINER}${id}.json`;

/**
 * `room`: throws when the storage cannot take that many more bytes (the quota of the pod the archive counts
 * against); absent where nothing limits it.
 */
export function storageArchive(storage: StorageDriver, log: (line: string) => void, room?: (bytes: number) => Promise<void>): EventArchive {
  // Operations on one event run in the order asked (a save, then the eviction that follows it).
  const lock = new KeyedLock();
  let received = 0;

  async function read(path: string): Promise<ArchivedEvent | null> {
    const stored = await storage.get(path);
    if (!stored) return null;
    try {
      const record = JSON.parse(await new Response(stored.body).text()) as Partial<ArchivedEvent>;
      if (typeof record.received === 'number' && shapeProblem(record.event, Infinity) === null) return record as ArchivedEvent;
    } catch {
      // Reported below like any other unreadable record.
    }
    log(`nostr: ignoring ${path}, which holds no archived event`);
    return null;
  }

  return {
    async load() {
      const records: ArchivedEvent[] = [];
      try {
        for await (const member of storage.list(ARCHIVE_CONTAINER)) {
          if (member.isContainer || !member.path.endsWith('.json')) continue;
          const record = await read(member.path);
          if (record) records.push(record);
        }
      } catch (error) {
        if (!isStorageError(error, 'NotFound')) throw error;
      }
      records.sort((a, b) => a.received - b.received);
      received = records.at(-1)?.received ?? 0;
      return records.map((record) => record.event);
    },
    ...(room && {
      admit: (event: NostrEvent) => room(new TextEncoder().encode(JSON.stringify({ received: received + 1, event })).byteLength),
    }),
    save(event) {
      const record: ArchivedEvent = { received: ++received, event };
      return lock.run(event.id, async () => {
        await storage.put(pathOf(event.id), JSON.stringify(record), { contentType: 'application/json' });
      });
    },
    remove(id) {
      return lock.run(id, async () => {
        await storage.delete(pathOf(id));
      });
    },
  };
}
