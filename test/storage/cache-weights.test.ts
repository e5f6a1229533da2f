import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../bench/cache-weights.ts';

const run = promisify(execFile);
/** What the heap left after full collections varies by between runs of one build (docs/benchmarks.md, "Round seven"). */
const NOISE_BYTES = 256 * 1024;

/** One workload per cache, the benchmark's sizes. */
const WORKLOADS = ['fs file bodies: GET ~90 B', 'fs sidecar types: GET ~90 B', 'fs listings', '(Turtle)', 'conversions', 'ACL documents: GET in containers', 'WAC decisions'];

// A bound that its cache's entries exceed is no bound: each cache of a request's path, filled through real
// requests, may keep alive at most a little more than the weight it accounts for (bench/cache-weights.ts).
describe('the byte-weighed caches', () => {
  it('keep alive no more than they account for', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/cache-weights.ts', '--entries', '1500', '--json', '--only', WORKLOADS.join(',')], { maxBuffer: 1024 * 1024 });
    const rows = JSON.parse(stdout) as Row[];
    expect(new Set(rows.map((row) => row.cache)).size).toBe(7);
    expect(rows.filter((row) => row.entries === 0)).toEqual([]);
    // What full collections leave varies by ~0.1–0.2 MB between runs, a large share of the smaller rows (~0.3–0.6 MB).
    const exceeding = rows.filter((row) => row.measured > 1.2 * row.accounted + NOISE_BYTES).map((row) => `${row.cache}, ${row.workload}: ${row.measured} bytes kept for ${row.accounted} accounted`);
    expect(exceeding).toEqual([]);
  });
});
