/**
 * What `svc start` sets up around the storage on Node, and on Deno and Bun through their Node compatibility
 * (runtimes/shared/standalone.ts): the TLS files, the notices about the data directory, and the platform's
 * parts that only an option needs, each loaded with its option only: the git backend (--git, on the fs
 * driver's files), the document database (--docdb), the data browser's files (--databrowser) and the shared
 * state (--redis-url).
 */
import type { SharedState } from '../../src/cluster/shared-state.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import type { DocumentStore } from '../../src/docdb/store.ts';
import type { Platform } from '../../src/platform.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import type { NodeGitBackend } from './git-backend.ts';
import { readOptionFile } from './load-config.ts';

/** The PEM key and certificate of --ssl-key and --ssl-cert, read; none when neither is given. */
export async function tlsFilesOf(config: Config): Promise<{ key: string; cert: string } | undefined> {
  if (Boolean(config.sslKey) !== Boolean(config.sslCert)) {
    throw new ConfigError('--ssl-key and --ssl-cert must be given together to serve HTTPS.');
  }
  if (!config.sslKey || !config.sslCert) return undefined;
  return { key: await readOptionFile(config.sslKey, '--ssl-key'), cert: await readOptionFile(config.sslCert, '--ssl-cert') };
}

/** What a user should know about the storage before the first request. */
export function storageNotices(storage: StorageDriver): string[] {
  if (!(storage instanceof FsDriver) || !storage.foldsNames) return [];
  return [
    `notice: the data directory ${storage.root} ignores case or normalises names (as macOS and Windows disks do): each existing name must be asked for as it is spelled there, and a new name may not differ from an existing one in case or normalisation only (400).`,
  ];
}

export type OptionalPlatformParts = Pick<Platform, 'git' | 'documentStore' | 'databrowserAsset' | 'sharedState'>;

export interface OptionalParts {
  platform: OptionalPlatformParts;
  /** Closes what was opened: after the app has closed, as features use them until then. */
  close(): Promise<void>;
}

/** Opens the parts the options ask for; when one cannot be opened, those opened before it are closed again. */
export async function openOptionalParts(config: Config, storage: StorageDriver, log: (line: string) => void): Promise<OptionalParts> {
  let git: NodeGitBackend | undefined;
  let documentStore: DocumentStore | undefined;
  let sharedState: SharedState | undefined;
  let databrowserAsset: Platform['databrowserAsset'];
  // Each is closed even when another fails to; the first failure is reported.
  const close = async () => {
    const failed = (await Promise.allSettled([git?.close(), documentStore?.close(), sharedState?.close()])).find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  };
  try {
    // Git works on real files: only the fs driver has them (without it, the git feature refuses to start).
    if (config.git && storage instanceof FsDriver) git = await (await import('./git-backend.ts')).createNodeGitBackend(storage.root, log);
    if (config.docdb) documentStore = await (await import('./docdb.ts')).openMongoDocumentStore(config.docdbUrl, config.docdbDatabase);
    if (config.databrowser) databrowserAsset = (await import('./databrowser-assets.ts')).mashlibAssetReader();
    if (config.redisUrl) sharedState = await (await import('./redis-shared-state.ts')).openRedisSharedState(config.redisUrl, log);
  } catch (error) {
    // What stopped the start is reported, not a failure to close what was opened before it.
    await close().catch(() => undefined);
    throw error;
  }
  const platform: OptionalPlatformParts = { ...(git && { git }), ...(documentStore && { documentStore }), ...(databrowserAsset && { databrowserAsset }), ...(sharedState && { sharedState }) };
  return { platform, close };
}
