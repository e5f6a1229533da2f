import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { formatSize, parseSize } from '../../../src/config/sizes.ts';
import { measurePodUsage, readQuotaRecord, writeQuotaRecord, type QuotaRecord } from '../../../src/quota/record.ts';
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
  ].join('\n');
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
  return withStorage(config, async (storage) => {
    const root = await existingPodRoot(storage, config, name);
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
        const record = { limit, used: stored?.used ?? (await measurePodUsage(storage, root)) };
        await writeQuotaRecord(storage, root, record);
        return describeQuota(name, record);
      }
      case 'show': {
        if (unreadable) throw new ConfigError(`${unreadable}. Rewrite it with svc quota reconcile ${name} or svc quota set ${name} <size>.`);
        if (!stored) return `pod "${name}" has no quota record: its writes are not limited. Set one with svc quota set ${name} <size>.`;
        return describeQuota(name, stored);
      }
      default: {
        const used = await measurePodUsage(storage, root);
        const record = { limit: stored?.limit ?? config.defaultQuota, used };
        await writeQuotaRecord(storage, root, record);
        const change = stored
          ? `was ${stored.used} bytes, now ${used} bytes`
          : unreadable
            ? `the old record was unreadable, so the limit is --default-quota: ${unreadable}`
            : 'new record';
        return `reconciled (${change})\n${describeQuota(name, record)}`;
      }
    }
  });
}
