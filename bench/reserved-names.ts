/**
 * What the reserved-name rule costs on every request path, measured in-process.
 *
 *   npm run bench:names [-- --calls 200000]
 *
 * Times `storagePathFromUrlPath` (the parse every request passes) and, on their own, the rule's calls for
 * the same segments (`reservedNameProblem`), on paths of three kinds: lowercase ASCII (no folding at all),
 * ASCII with capitals (lower-cased), and non-ASCII names (NFKC and case mapping). Rounds alternate so
 * drift hits both alike; the first is a warm-up.
 */
import { parseArgs } from 'node:util';
import { storagePathFromUrlPath } from '../src/storage/paths.ts';
import { reservedNameProblem } from '../src/storage/reserved-names.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200000' } } });
const CALLS = Number(values.calls);
if (!Number.isInteger(CALLS) || CALLS < 1000) {
  console.error(`--calls must be a whole number of at least 1000, not ${JSON.stringify(values.calls)}`);
  process.exit(2);
}
const ROUNDS = 10;

const KINDS: Record<string, string> = {
  'lowercase ASCII': '/alice/public/notes/2026/meeting-notes.ttl',
  'ASCII with capitals': '/alice/Photos/Holiday/IMG_0001.JPG',
  'non-ASCII': `/alice/${encodeURIComponent('Café')}/${encodeURIComponent('Überblick.md')}`,
};

function time(run: () => unknown): number {
  const start = performance.now();
  for (let i = 0; i < CALLS / ROUNDS; i++) run();
  return performance.now() - start;
}

console.log(`${CALLS} calls per kind, ${ROUNDS} alternating rounds`);
for (const [kind, path] of Object.entries(KINDS)) {
  const segments = storagePathFromUrlPath(path).slice(1).split('/');
  const rule = () => segments.forEach((segment, index) => reservedNameProblem(segment, index < segments.length - 1 ? 'container' : 'resource'));
  let parse = 0;
  let check = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const parsed = time(() => storagePathFromUrlPath(path));
    const checked = time(rule);
    if (round === 0) continue;
    parse += parsed;
    check += checked;
  }
  const ns = (ms: number) => ((ms * 1e6) / CALLS).toFixed(0);
  console.log(`${kind.padEnd(20)} ${path}: the whole parse ${ns(parse)} ns, of which the reserved-name rule ${ns(check)} ns (${segments.length} segments)`);
}
