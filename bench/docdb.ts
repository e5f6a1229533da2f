/**
 * The database for the docdb workloads: jongodb (a MongoDB-wire server from npm) started for the run, or the
 * real mongod at MONGODB_URL. Without either, the docdb workloads are left out and the run says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDatabase, type TestDatabase } from '../test/support/jongodb.ts';
import type { ServerSpec } from './servers.ts';

const JONGODB = join(import.meta.dirname, '..', 'node_modules', '@jongodb', 'memory-server-bin-linux-x64-gnu', 'bin', 'jongodb');

export async function startBenchDocdb(log: (line: string) => void): Promise<TestDatabase | null> {
  if (!process.env.MONGODB_URL && (process.platform !== 'linux' || process.arch !== 'x64' || !existsSync(JONGODB))) {
    log('docdb workloads skipped: no jongodb binary for this platform and no MONGODB_URL');
    return null;
  }
  const database = await startTestDatabase();
  log(`docdb workloads against ${process.env.MONGODB_URL ? 'the mongod at MONGODB_URL' : 'jongodb'} (database ${database.database})`);
  return database;
}

/** svc's spec with the /db/ route on, backed by `database`. */
export function withDocdb(spec: ServerSpec, database: TestDatabase): ServerSpec {
  return {
    ...spec,
    command: (port, dataDir) => {
      const command = spec.command(port, dataDir);
      return { ...command, args: [...command.args, '--docdb', '--docdb-url', database.url, '--docdb-database', database.database] };
    },
  };
}
