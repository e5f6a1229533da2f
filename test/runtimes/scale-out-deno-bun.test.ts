/**
 * Scale-out on Redis (`--redis-url`) with Deno and Bun: the scale-out suite of test/e2e/ with its three
 * instances on one data directory being a Deno, a Bun and a Node process. Runs with `npm run test:runtimes`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeScaleOut } from '../e2e/scale-out-suite.ts';
import { startExtraRuntime } from '../portable/servers.ts';
import { startSvc } from '../support/server.ts';

describeScaleOut(
  'one data directory, served by Deno, Bun and Node',
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-scale-out-deno-bun-'));
    return {
      args: ['-r', root],
      env: {},
      read: (path) => readFile(join(root, path), 'utf8').catch(() => null),
      close: () => rm(root, { recursive: true, force: true }),
    };
  },
  (args, env, index) => (index === 2 ? startSvc(args, env) : startExtraRuntime(index === 0 ? 'deno' : 'bun', args, env)),
);
