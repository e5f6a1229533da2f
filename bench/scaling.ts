/**
 * The scaling comparison of `npm run bench` (and of `npm run bench:memory`): a 1,000- and a 10,000-member
 * container listed one request at a time, right after a write into the container (a fresh directory scan)
 * and unchanged (cached); medians of 30.
 */
import type { Owner } from './servers.ts';
import { fillContainer } from './workloads.ts';
import { median } from './stats.ts';

export interface ScalingRow {
  members: number;
  cold: number;
  warm: number;
}

export async function measureScaling(owner: Owner, log: (line: string) => void): Promise<ScalingRow[]> {
  const small = `${owner.podUri}bench-private/scale-1k/`;
  const large = `${owner.podUri}bench-private/scale-10k/`;
  log('scaling: filling a 1,000- and a 10,000-member container');
  await fillContainer(owner, small, 1000, 16);
  await fillContainer(owner, large, 10_000, 16);
  const listOnce = async (url: string) => {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: owner.authorization } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`listing ${url} answered ${response.status}`);
    return performance.now() - started;
  };
  const rows: ScalingRow[] = [];
  for (const [members, url] of [[1000, small], [10_000, large]] as const) {
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 30; i++) {
      // A write into the container makes the next listing a fresh directory scan.
      const write = await fetch(`${url}touched.json`, { method: 'PUT', headers: { authorization: owner.authorization, 'content-type': 'application/ld+json' }, body: '{}' });
      await write.arrayBuffer();
      cold.push(await listOnce(url));
      warm.push(await listOnce(url));
    }
    rows.push({ members, cold: median(cold), warm: median(warm) });
  }
  return rows;
}
