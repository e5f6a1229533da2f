import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

const run = promisify(execFile);

const WRANGLER_TOML = readFileSync(join(import.meta.dirname, '..', '..', 'wrangler.toml'), 'utf8');

/** The compatibility date and flags of wrangler.toml, for Miniflare to run the bundle as Cloudflare would. */
export const WORKER_COMPATIBILITY = {
  compatibilityDate: /^compatibility_date = "([^"]+)"/m.exec(WRANGLER_TOML)![1]!,
  compatibilityFlags: [...(/^compatibility_flags = \[([^\]]*)\]/m.exec(WRANGLER_TOML)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!),
};

/** The Worker as `wrangler deploy` would upload it (runtimes/workers bundled by `wrangler deploy --dry-run`). */
export interface WorkerBundle {
  /** The bundle's main module, for Miniflare's `scriptPath`. */
  script: string;
  /** Its directory, for Miniflare's `modulesRoot`. */
  outdir: string;
  remove(): Promise<void>;
}

/** Bundles the server's Worker, or another main module (`entry`) with the same wrangler.toml (its bindings). */
export async function buildWorkerBundle(entry?: string): Promise<WorkerBundle> {
  const outdir = await mkdtemp(join(tmpdir(), 'svc-worker-'));
  await run(join('node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir, '--config', 'wrangler.toml', ...(entry ? [entry] : [])], {
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
  });
  const main = entry ? entry.split('/').at(-1)!.replace(/\.ts$/, '.js') : 'index.js';
  return { script: join(outdir, main), outdir, remove: () => rm(outdir, { recursive: true, force: true }) };
}

/**
 * Miniflare's `workers` for two isolates of the bundle with an R2 bucket (`PODS`) and the `SHARED` Durable
 * Object, which the first defines and the second binds by `scriptName`, as isolates of one deployment share it.
 */
export function isolatesSharingTheObject(bundle: WorkerBundle, bindings: Record<string, string>) {
  const common = { modules: true, scriptPath: bundle.script, modulesRoot: bundle.outdir, ...WORKER_COMPATIBILITY, r2Buckets: ['PODS'], bindings };
  return [
    { name: 'first', ...common, durableObjects: { SHARED: { className: 'SharedStateObject', useSQLite: true } } },
    { name: 'second', ...common, durableObjects: { SHARED: { className: 'SharedStateObject', scriptName: 'first', useSQLite: true } } },
  ];
}

/** What workerd prints (the app's log lines), for Miniflare's `handleRuntimeStdio`; `text()` is all of it so far. */
export function runtimeOutput(): { handleRuntimeStdio(stdout: Readable, stderr: Readable): void; text(): string } {
  let text = '';
  return {
    handleRuntimeStdio: (stdout, stderr) => {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (text += chunk));
    },
    text: () => text,
  };
}
