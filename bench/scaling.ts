/**
 * The scaling comparison of `npm run bench` (and of `npm run bench:memory`): a 1,000- and a 10,000-member
 * container listed one request at a time, right after a write through svc into the container and unchanged
 * (cached); medians of 30. Each svc given (the working tree's, and the baseline's with --baseline) is measured
 * in the same loop, one after the other, so both suffer the same load. The listing after a write through svc
 * is not a directory scan (the fs driver updates its cached listing with the member it wrote): the cold scan
 * of a directory changed outside svc is measured by `npm run bench:scan`.
 */
import type { Owner } from './servers.ts';
import { fillContainer } from './workloads.ts';
import { median } from './stats.ts';

export interface ScalingRow {
  server: string;
  members: number;
  /** The listing right after a write through svc into the container. */
  cold: number;
  warm: number;
}

export async function measureScaling(servers: readonly { name: string; owner: Owner }[], log: (line: string) => void): Promise<ScalingRow[]> {
  const urls = servers.map(({ owner }) => [`${owner.podUri}bench-private/scale-1k/`, `${owner.podUri}bench-private/scale-10k/`] as const);
  for (const [index, { name, owner }] of servers.entries()) {
    log(`scaling: filling a 1,000- and a 10,000-member container (${name})`);
    await fillContainer(owner, urls[index]![0], 1000, 16);
    await fillContainer(owner, urls[index]![1], 10_000, 16);
  }
  const listOnce = async (owner: Owner, url: string) => {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: owner.authorization } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`listing ${url} answered ${response.status}`);
    return performance.now() - started;
  };
  const rows: ScalingRow[] = [];
  for (const [size, members] of [1000, 10_000].entries()) {
    const samples = servers.map(() => ({ cold: [] as number[], warm: [] as number[] }));
    for (let i = 0; i < 30; i++) {
      // Alternate the order so no server always goes first.
      const order = servers.map((_, index) => index);
      if (i % 2 === 1) order.reverse();
      for (const index of order) {
        const { owner } = servers[index]!;
        const url = urls[index]![size]!;
        const write = await fetch(`${url}touched.json`, { method: 'PUT', headers: { authorization: owner.authorization, 'content-type': 'application/ld+json' }, body: '{}' });
        await write.arrayBuffer();
        samples[index]!.cold.push(await listOnce(owner, url));
        samples[index]!.warm.push(await listOnce(owner, url));
      }
    }
    for (const [index, { name }] of servers.entries()) rows.push({ server: name, members, cold: median(samples[index]!.cold), warm: median(samples[index]!.warm) });
  }
  return rows;
}
