/**
 * `npm run bench -- --baseline <git ref>`: svc as of another commit, run beside the working tree's svc in the
 * same interleaved rounds, so a change is measured against what it replaces on the same (noisy) machine.
 * The ref's sources are exported into .bench/baseline/<commit> and bundled there; its imports resolve to this
 * checkout's node_modules, one directory level up at a time, so the ref must not need other dependencies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { OURS, type ServerSpec } from './servers.ts';

const ROOT = join(import.meta.dirname, '..');

export async function baselineSpec(ref: string, log: (line: string) => void): Promise<ServerSpec> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const directory = join(ROOT, '.bench', 'baseline', commit.slice(0, 12));
  const cli = join(directory, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    log(`baseline: exporting ${ref} (${commit.slice(0, 12)}) into ${directory} and bundling it`);
    await mkdir(directory, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${directory}"`], { cwd: ROOT });
    await build({
      entryPoints: [join(directory, 'runtimes', 'node', 'cli.ts')],
      outdir: join(directory, 'dist'),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
  }
  return {
    ...OURS,
    name: `svc@${ref}`,
    command: (port, dataDir) => {
      const ours = OURS.command(port, dataDir);
      return { ...ours, args: [cli, ...ours.args.slice(1)] };
    },
  };
}
