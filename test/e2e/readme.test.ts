import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../support/server.ts';

const run = promisify(execFile);

/** The shell block between the walk-through markers of the README's quick start. */
async function walkThrough(): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  const match = /<!-- walk-through:start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- walk-through:end -->/.exec(readme);
  if (!match) throw new Error('README.md has no walk-through block between the walk-through markers');
  return match[1]!;
}

/** The status the comment after each curl command promises, in order. */
function promisedStatuses(script: string): number[] {
  const commands = script.replace(/\\\n/g, ' ').split('\n').filter((line) => /\bcurl\b/.test(line));
  return commands.map((line) => Number(/\s#\s*(\d{3})\b/.exec(line)?.[1]));
}

describe('README quick start', () => {
  it('works as written against a fresh `svc start` with access control on', async () => {
    const server = await startSvc(['-q']);
    try {
      const script = (await walkThrough()).replaceAll('http://localhost:3000', server.base);
      // Each curl also reports its status on stderr, to compare with the status its comment promises.
      const prelude = `set -e\ncurl() { command curl -sS -w '%{stderr}status %{http_code}\\n' "$@"; }\n`;
      const { stdout, stderr } = await run('bash', ['-c', prelude + script], {
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      });
      const statuses = [...stderr.matchAll(/status (\d{3})/g)].map((match) => Number(match[1]));
      expect(statuses).toEqual(promisedStatuses(script));
      expect(statuses.length).toBeGreaterThanOrEqual(6);
      expect(stdout).toContain('hello pod');
      expect(stdout).toMatch(new RegExp(`^location: ${server.base}/alice/notes/card\\r?$`, 'im'));
      expect(await readFile(join(server.root, 'alice', 'notes', 'card'), 'utf8')).toContain('Alice');
    } finally {
      await server.stop();
    }
  });
});
