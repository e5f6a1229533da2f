/**
 * The Nostr relay's events in the shared-state Durable Object's SQLite storage (Platform.nostrArchive): the
 * relay runs in the object, whose memory goes when it is evicted or hibernates, so every accepted event is
 * written here and read back into the relay's index when the object starts again. One row per event, in the
 * order received (eviction takes the earliest first, as on Node).
 */
import type { SqlStorage } from 'cloudflare:workers';
import type { NostrEvent } from '../../src/nostr/event.ts';
import type { EventArchive } from '../../src/nostr/relay.ts';

interface Row extends Record<string, string | number | null> {
  event: string;
}

export function sqliteEventArchive(sql: SqlStorage): EventArchive {
  sql.exec('CREATE TABLE IF NOT EXISTS nostr_events (received INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, event TEXT NOT NULL)');
  return {
    async load() {
      return sql.exec<Row>('SELECT event FROM nostr_events ORDER BY received').toArray().map((row) => JSON.parse(row.event) as NostrEvent);
    },
    async save(event) {
      sql.exec('INSERT INTO nostr_events (id, event) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', event.id, JSON.stringify(event));
    },
    async remove(id) {
      sql.exec('DELETE FROM nostr_events WHERE id = ?', id);
    },
  };
}
