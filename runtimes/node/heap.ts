/**
 * How the server's heap grows (docs/deployment.md, "Memory"). V8 lets the old generation grow to several
 * times what is live before it collects it, and the young generation to 32 MB: under load a server whose live
 * heap is ~30 MB reached 150 MB of heap and 250 MB resident. So `svc start` has the old generation collected
 * once it has grown by a fifth, and stops the young generation's growth at 8 MB, for no measurable CPU
 * (npm run bench:memory and the A/B in docs/benchmarks.md: 16 MB peaked ~9 MB higher, no faster).
 *
 * Both are V8 flags set while the process runs: the young generation's bound (`--max-semi-space-size`) is only
 * read when Node starts, and given on Node's command line any V8 flag makes Node compile its own modules from
 * source instead of its built-in code cache (~30 ms more to start here). So the young generation is let grow,
 * doubling as V8 does, until it holds 8 MB, and not beyond: a GC observer stops its growth factor there.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 20;
/** The young generation's two semi-spaces together. */
const YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;

/** The flags the policy set, and the values V8 had before (its defaults: the policy stands back when given). */
const set = new Map<string, { policy: number; before: number }>();

function setFlag(name: string, value: number, before: number): void {
  setFlagsFromString(`--${name}=${value}`);
  set.set(name, { policy: value, before });
}

/** Applies the policy, unless the command line or NODE_OPTIONS chose heap sizes of their own. */
export function applyHeapPolicy(execArgv: readonly string[], nodeOptions: string | undefined): void {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (!given.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) setFlag('heap-growing-percent', HEAP_GROWING_PERCENT, 0);
  if (given.some((flag) => /^--(max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b/.test(flag))) return;
  let full = false;
  new PerformanceObserver(() => {
    const youngBytes = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    if (youngBytes >= YOUNG_GENERATION_BYTES === full) return;
    full = !full;
    setFlag('semi-space-growth-factor', full ? 1 : 2, 2);
  }).observe({ entryTypes: ['gc'] });
}

/**
 * Runs `use` with V8's flags as they were when the process started. V8 stamps its code cache with a hash of
 * its flags and refuses a cache made under other flags: the start that reads the cache has not applied the
 * policy yet, so the cache (runtimes/node/code-cache.ts) is made without it too.
 */
export function withStartFlags<T>(use: () => T): T {
  for (const [name, { before }] of set) setFlagsFromString(`--${name}=${before}`);
  try {
    return use();
  } finally {
    for (const [name, { policy }] of set) setFlagsFromString(`--${name}=${policy}`);
  }
}
