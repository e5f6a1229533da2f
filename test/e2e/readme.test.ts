import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { pathWithSvc, promisedStatuses, seenStatuses } from '../support/doc-examples.ts';
import { startSvc } from '../support/server.ts';

const run = promisify(execFile);

/** The shell block between the walk-through markers of the README's quick start. */
async function walkThrough(): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  const match = /<!-- walk-through:start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- walk-through:end -->/.exec(readme);
  if (!match) throw new Error('README.md has no walk-through block between the walk-through markers');
  return match[1]!;
}

/**
 * Runs the walk-through as a newcomer would paste it, with `svc` on the PATH (`npm link`) and `svc token`
 * reading `root`; gives what a terminal would show (standard output and error as one stream, in order).
 */
async function runWalkThrough(script: string, root: string): Promise<{ seen: string; statuses: number[] }> {
  const { stdout } = await run('bash', ['-c', `set -e\nexec 2>&1\n${script}`], { env: { ...process.env, SVC_ROOT: root, PATH: await pathWithSvc() } });
  // The walk-through's own first line makes curl print each status as `→ NNN` on a line of its own.
  return { seen: stdout, statuses: seenStatuses(stdout) };
}

describe('README quick start', () => {
  it('works as written against a fresh `svc start` with access control on, and again when run a second time', async () => {
    // The defaults a newcomer's `npm start` has, rate limits included.
    const server = await startSvc(['-q'], { SVC_RATE_LIMIT: 'true' });
    try {
      const script = (await walkThrough()).replaceAll('http://localhost:3000', server.base);
      const first = await runWalkThrough(script, server.root);
      expect(first.statuses).toEqual(promisedStatuses(script));
      expect(first.statuses.length).toBeGreaterThanOrEqual(7);
      // Each answer ends on a line of its own, followed by its status.
      expect(first.seen).toMatch(/^hello pod\n→ 200$/m);
      expect(first.seen).toMatch(/\}\n→ 401$/m);
      expect(first.seen).toMatch(new RegExp(`^location: ${server.base}/alice/notes/card\\r?$`, 'im'));
      expect(await readFile(join(server.root, 'alice', 'notes', 'card'), 'utf8')).toContain('Alice');

      // Run again, the second pod creation from this address is over the limit (429, naming the option), and
      // `svc token alice` gives the token the rest uses.
      const again = await runWalkThrough(script, server.root);
      expect(again.seen).toContain("--rate-limit-pods; 0 lifts it");
      expect(again.statuses).toEqual([429, ...promisedStatuses(script).slice(1)]);
      expect(again.seen).toMatch(/^hello pod\n→ 200$/m);

      // With the pod limit lifted, as the quick start says for local use, the creation answers 409 instead.
      const lifted = await startSvc(['-q', '--rate-limit-pods', '0', '-r', server.root], { SVC_RATE_LIMIT: 'true' });
      try {
        const third = await runWalkThrough(script.replaceAll(server.base, lifted.base), server.root);
        expect(third.seen).toContain('The pod name "alice" is taken');
        expect(third.statuses).toEqual([409, ...promisedStatuses(script).slice(1)]);
      } finally {
        await lifted.stop();
      }
    } finally {
      await server.stop();
    }
  });
});
