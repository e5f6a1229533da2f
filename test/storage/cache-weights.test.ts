import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../bench/cache-weights.ts';

const run = promisify(execFile);

/** One workload per cache, the benchmark's sizes; enough entries (megabytes) that what a collection leaves varies little. */
const WORKLOADS = ['fs file bodies: GET ~90 B', 'fs sidecar types: GET ~90 B', 'fs listings', '(Turtle)', 'conversions', 'ACL documents: GET in containers', 'WAC decisions'];

// A bound that its cache's entries exceed is no bound: each cache of a request's path, filled through real
// requests, may keep alive at most a little more than the weight it accounts for (bench/cache-weights.ts).
describe('the byte-weighed caches', () => {
  it('keep alive no more than they account for', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/cache-weights.ts', '--entries', '1500', '--json', '--only', WORKLOADS.join(',')], { maxBuffer: 1024 * 1024 });
    const rows = JSON.parse(stdout) as Row[];
    expect(new Set(rows.map((row) => row.cache)).size).toBe(7);
    expect(rows.filter((row) => row.entries === 0)).toEqual([]);
    const exceeding = rows.filter((row) => row.measured / row.accounted > 1.2).map((row) => `${row.cache}, ${row.workload}: ${row.measured} bytes kept for ${row.accounted} accounted`);
    expect(exceeding).toEqual([]);
  });
});
