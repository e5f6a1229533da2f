import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { formatSize, parseSize } from '../../../src/config/sizes.ts';
import { quotaScopeOf } from '../../../src/app.ts';
import { DOCDB_PREFIX } from '../../../src/docdb/target.ts';
import { DocumentStoreUnavailable } from '../../../src/docdb/store.ts';
import { readRootPodRecord } from '../../../src/pods/single-user.ts';
import { measurePodUsage, readQuotaRecord, recountedUsage, writeQuotaRecord, type QuotaRecord } from '../../../src/quota/record.ts';
import type { StorageDriver } from '../../../src/storage/types.ts';
import { openMongoDocumentStore } from '../docdb.ts';
import { existingPodRoot, withStorage } from './pod-storage.ts';

function bytes(value: number): string {
  return `${formatSize(value)} (${value} bytes)`;
}

export function describeQuota(name: string, record: QuotaRecord): string {
  const unlimited = record.limit === 0;
  const free = unlimited ? 'unlimited' : bytes(Math.max(0, record.limit - record.used));
  const percent = unlimited ? '-' : `${((record.used / record.limit) * 100).toFixed(1)}%`;
  return [
    `pod:     ${name}`,
    `used:    ${bytes(record.used)}`,
    `limit:   ${unlimited ? 'unlimited' : bytes(record.limit)}`,
    `free:    ${free}`,
    `percent: ${percent}`,
    ...(record.documents ? [`of which documents under /db/: ${bytes(record.documents)}`] : []),
  ].join('\n');
}

/** The pod a command names: `/` is the single-user pod at the root. */
async function podRootNamed(storage: StorageDriver, config: Config, name: string): Promise<string> {
  if (name !== '/') return existingPodRoot(storage, config, name);
  if (!(await readRootPodRecord(storage))) throw new ConfigError(`there is no pod at / in ${config.root} (single-user mode with --single-user-name "" makes it).`);
  return '/';
}

/**
 * The bytes of the pod's documents under `/db/` when the configuration names a document database (--docdb);
 * null when it names none or the database cannot be reached, and the record's figure stays.
 */
async function measureDocuments(config: Config, podRoot: string): Promise<{ bytes: number | null; note: string }> {
  if (!config.docdb) return { bytes: null, note: '' };
  const store = await openMongoDocumentStore(config.docdbUrl, config.docdbDatabase);
  try {
    return { bytes: await store.usage(DOCDB_PREFIX.slice(0, -1) + podRoot), note: '' };
  } catch (error) {
    if (!(error instanceof DocumentStoreUnavailable)) throw error;
    return { bytes: null, note: `\ndocuments under /db/ not measured (${error.message}): their recorded size is kept` };
  } finally {
    await store.close();
  }
}

/**
 * `svc quota set|show|reconcile <pod> [size]`. Edits `.quota.json` through the storage driver; a running
 * server notices the new record on the pod's next write.
 */
export async function quotaCommand(config: Config, args: readonly string[]): Promise<string> {
  const [action, name, size] = args;
  if (!name || !['set', 'show', 'reconcile'].includes(action ?? '')) {
    throw new ConfigError('usage: svc quota set <pod> <size> | svc quota show <pod> | svc quota reconcile <pod>.');
  }
  const scope = quotaScopeOf(config);
  return withStorage(config, async (storage) => {
    const root = await podRootNamed(storage, config, name);
    const outside = scope.outsideOf(root);
    let stored: QuotaRecord | undefined;
    let unreadable: string | null = null;
    try {
      stored = (await readQuotaRecord(storage, root))?.record;
    } catch (error) {
      // set and reconcile write a new record, so a broken one only stops show.
      unreadable = (error as Error).message;
    }
    switch (action) {
      case 'set': {
        const limit = size === undefined ? null : parseSize(size);
        if (limit === null) throw new ConfigError(`give the limit as a size such as 500KB, 50MB or 1GB (0 = unlimited): svc quota set ${name} <size>.`);
        const record = stored ? { ...stored, limit } : { limit, used: await measurePodUsage(storage, root, outside) };
        await writeQuotaRecord(storage, root, record);
        return describeQuota(name, record);
      }
      case 'show': {
        if (unreadable) throw new ConfigError(`${unreadable}. Rewrite it with svc quota reconcile ${name} or svc quota set ${name} <size>.`);
        if (!stored) return `pod "${name}" has no quota record: its writes are not limited. Set one with svc quota set ${name} <size>.`;
        return describeQuota(name, stored);
      }
      default: {
        const documents = await measureDocuments(config, root);
        const base = { limit: stored?.limit ?? config.defaultQuota, used: 0, documents: documents.bytes ?? stored?.documents ?? 0 };
        const record = await recountedUsage(storage, root, base, outside);
        await writeQuotaRecord(storage, root, record);
        const change = stored
          ? `was ${stored.used} bytes, now ${record.used} bytes`
          : unreadable
            ? `the old record was unreadable, so the limit is --default-quota: ${unreadable}`
            : 'new record';
        return `reconciled (${change})${documents.note}\n${describeQuota(name, record)}`;
      }
    }
  });
}
