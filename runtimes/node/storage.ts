import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

export interface OpenStorageOptions {
  /** Opened by the server itself (see FsOptions.recover and S3OpenOptions.recover), not by a command beside it. */
  recover?: boolean;
  /** The process environment: S3 credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN. */
  env?: Record<string, string | undefined>;
  log?(line: string): void;
  /** The runtime's name, for this instance's S3 lease (with the host and process id). */
  runtime?: string;
}

/** Opens the configured storage on Node, Deno or Bun; a storage that cannot be used stops startup with a ConfigError. */
export async function openStorage(config: Config, options: OpenStorageOptions = {}): Promise<StorageDriver> {
  if (config.storage === 'r2') {
    throw new ConfigError('--storage r2 is available only on Cloudflare Workers (runtime: workers, with an R2 bucket bound as PODS); elsewhere use --storage fs, s3 or memory (R2 through its S3 API: --storage s3 --s3-endpoint https://<account>.r2.cloudflarestorage.com --s3-region auto).');
  }
  // The S3 client (aws4fetch, the XML parser) is loaded only with --storage s3.
  if (config.storage === 's3') return (await import('./s3-storage.ts')).openS3Storage(config, options);
  if (config.storage === 'memory') return new MemoryDriver();
  return openDataDirectory(config, options.recover === true, options.log);
}

/** The fs driver on --root; what keeps it from being the data directory is said in one line naming the option. */
export async function openDataDirectory(config: Config, recover: boolean, log?: (line: string) => void): Promise<FsDriver> {
  try {
    // Other instances write the same files: every read checks the file instead of trusting a cached body.
    return await FsDriver.open(config.root, { recover, cacheBytes: config.cacheSize, ...(log && { log }), ...(config.redisUrl && { revalidateAfterMs: 0, shared: true }) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'that is a file, not a directory'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'this user may not write there'
          : code === 'ENOENT'
            ? 'no directory can be made there'
            : (error as Error).message;
    throw new ConfigError(`cannot use --root ${config.root} as the data directory: ${why}. Give a directory svc may write (it is made if missing).`);
  }
}

/** Where the data is, for the line printed once the server listens. */
export function storageDescription(config: Config): string {
  if (config.storage === 'memory') return 'memory (lost on exit)';
  if (config.storage === 's3') {
    const where = config.s3Endpoint ? new URL(config.s3Endpoint).origin : `AWS S3 in ${config.s3Region}`;
    return `S3 bucket ${config.s3Bucket}${config.s3Prefix ? ` under ${config.s3Prefix}` : ''} at ${where}`;
  }
  return `files under ${config.root}`;
}

/** The options that name a server's data, for commands printed to run beside it (`svc token ...`). */
export function dataOptions(config: Config): string {
  if (config.config) return `-c ${config.config}`;
  if (config.storage !== 's3') return `-r ${config.root}`;
  const words = ['--storage s3', `--s3-bucket ${config.s3Bucket}`];
  if (config.s3Endpoint) words.push(`--s3-endpoint ${config.s3Endpoint}`);
  if (config.s3Region !== 'us-east-1') words.push(`--s3-region ${config.s3Region}`);
  if (config.s3Prefix) words.push(`--s3-prefix ${config.s3Prefix}`);
  if (config.s3ForcePathStyle) words.push('--s3-force-path-style');
  return words.join(' ');
}
