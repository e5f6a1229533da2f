/**
 * Git over HTTP on Deno and Bun: the same git backend as on Node (spawned through their Node
 * compatibility), the same end-to-end suite. Runs with `npm run test:runtimes`, which installs both.
 */
import { gitSuite } from '../support/git-suite.ts';
import { startExtraRuntime } from '../portable/servers.ts';

for (const runtime of ['deno', 'bun'] as const) {
  gitSuite(runtime, (args) => startExtraRuntime(runtime, args, { SVC_RATE_LIMIT: 'false' }));
}
