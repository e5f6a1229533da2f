/**
 * How the server's heap grows (docs/deployment.md, "Memory"). V8 lets the old generation grow to several
 * times what is live before it collects it: under load a server whose live heap is ~30 MB reached 150 MB of
 * heap and 250 MB resident. Collected once it has grown by a fifth, it stays within ~1.2 times what is live,
 * for no measurable CPU (npm run bench:memory, and the A/B in docs/benchmarks.md). The young generation's
 * size can only be set when Node starts (`--max-semi-space-size`), which the deployment files do.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

/** Applies the policy, unless the command line or NODE_OPTIONS chose a growth of their own. */
export function applyHeapPolicy(execArgv: readonly string[], nodeOptions: string | undefined): void {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
