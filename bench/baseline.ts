/**
 * `npm run bench -- --baseline <git ref>`: svc as of another commit, run beside the working tree's svc in the
 * same interleaved rounds, so a change is measured against what it replaces on the same (noisy) machine.
 *
 * The ref's sources are exported into .bench/baseline/<commit> and built there as that commit builds itself
 * (its own scripts/build-dist.mjs, else one esbuild bundle of its CLI). When its package-lock.json differs from
 * this checkout's, its own dependencies are installed beside it (`npm ci --omit=dev`, once per commit), so it
 * runs on the packages it was written for, not on this checkout's. It is started with the flags of the current
 * svc that it knows: a flag added since (say `--allow-private-fetch`) is left out, and said so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { deployEnvironment, OURS, SVC_SCRIPT, type ServerSpec } from './servers.ts';

const ROOT = join(import.meta.dirname, '..');

function sameLockfile(directory: string): boolean {
  const read = (root: string) => (existsSync(join(root, 'package-lock.json')) ? readFileSync(join(root, 'package-lock.json'), 'utf8') : null);
  const theirs = read(directory);
  return theirs !== null && theirs === read(ROOT);
}

/** Exports, installs and builds the commit once; a half-made directory (no `.ready`) is made again. */
async function prepare(commit: string, directory: string, log: (line: string) => void): Promise<void> {
  if (existsSync(join(directory, '.ready'))) return;
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${directory}"`], { cwd: ROOT });
  if (!sameLockfile(directory)) {
    log(`baseline: its dependencies differ from this checkout's; npm ci --omit=dev in ${directory}`);
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: directory, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (existsSync(join(directory, 'scripts', 'build-dist.mjs'))) {
    // Its esbuild comes from its own dependencies when it lists it there, else from this checkout's.
    execFileSync(process.execPath, [join(directory, 'scripts', 'build-dist.mjs')], { cwd: directory, stdio: ['ignore', 'ignore', 'inherit'] });
  } else {
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
  execFileSync('touch', [join(directory, '.ready')]);
}

/** The long flags (`--name`, `--no-name`) a build's `svc start --help` names. */
export function flagsOf(cli: string): Set<string> {
  const help = execFileSync(process.execPath, [cli, 'start', '--help'], { encoding: 'utf8' });
  return new Set(help.match(/--[a-z][a-z0-9-]*/g) ?? []);
}

/** The words without the long flags the build does not know, each with its value (the word after it, unless a flag). */
export function knownArgs(args: readonly string[], known: ReadonlySet<string>): { args: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const name = word.split('=')[0]!;
    if (!name.startsWith('--') || known.has(name)) {
      kept.push(word);
      continue;
    }
    dropped.push(word);
    const next = args[i + 1];
    if (!word.includes('=') && next !== undefined && !next.startsWith('-')) dropped.push(args[++i]!);
  }
  return { args: kept, dropped };
}

export async function baselineSpec(ref: string, log: (line: string) => void): Promise<ServerSpec> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const directory = join(ROOT, '.bench', 'baseline', commit.slice(0, 12));
  log(`baseline: ${ref} (${commit.slice(0, 12)}) in ${directory}`);
  await prepare(commit, directory, log);
  const cli = join(directory, 'dist', 'cli.js');
  const known = flagsOf(cli);
  // svc's own words, after its script; the baseline runs with the Node flags of its own time (none).
  const svcWords = (args: readonly string[]) => args.slice(args.indexOf(SVC_SCRIPT) + 1);
  const sample = knownArgs(svcWords(OURS.command(0, '/tmp').args), known);
  if (sample.dropped.length) log(`baseline: ${ref} does not know ${sample.dropped.join(' ')}; started without`);
  // Its process's environment as its own deploy/svc.service gave it.
  const env = deployEnvironment(directory);
  return {
    ...OURS,
    name: `svc@${ref}`,
    command: (port, dataDir) => {
      const ours = OURS.command(port, dataDir);
      return { ...ours, args: [cli, ...knownArgs(svcWords(ours.args), known).args], env };
    },
  };
}
