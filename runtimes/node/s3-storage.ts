import { hostname } from 'node:os';
import { kill, pid } from 'node:process';
import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { S3Driver, type InstanceName } from '../../storage-drivers/s3.ts';
import type { OpenStorageOptions } from './storage.ts';

/**
 * Whether the process a lease names is gone: on this host, either this very process (its lease was left by an
 * earlier start with the same process id, as in a container) or one that signal 0 cannot find.
 */
function isGone(other: InstanceName): boolean {
  if (other.host !== hostname()) return false;
  if (other.pid === pid) return true;
  try {
    kill(other.pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ESRCH';
  }
}

/**
 * `--storage s3`: connects to the bucket before the server listens. A missing bucket option or credentials,
 * a missing bucket, refused credentials, an endpoint that does not answer, and (without conditional writes
 * or --redis-url) another instance already serving the bucket stop startup with one line.
 */
export async function openS3Storage(config: Config, options: OpenStorageOptions): Promise<S3Driver> {
  if (!config.s3Bucket) throw new ConfigError('--storage s3 needs --s3-bucket (SVC_S3_BUCKET): the bucket that holds the pods.');
  const env = options.env ?? {};
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError('--storage s3 needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials) in the environment.');
  }
  let driver: S3Driver;
  try {
    driver = await S3Driver.open({
      location: {
        ...(config.s3Endpoint && { endpoint: config.s3Endpoint }),
        bucket: config.s3Bucket,
        region: config.s3Region,
        forcePathStyle: config.s3ForcePathStyle,
      },
      credentials: { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }) },
      prefix: config.s3Prefix ?? '',
      timeoutMs: config.s3Timeout * 1000,
      recover: options.recover === true,
      shared: Boolean(config.redisUrl),
      instance: { host: hostname(), pid, runtime: options.runtime ?? 'node' },
      isGone,
      ...(options.log && { log: options.log }),
    });
  } catch (error) {
    throw new ConfigError(`--storage s3: ${(error as Error).message}`);
  }
  if (options.recover && !driver.features.conditionalWrites) {
    options.log?.(
      `notice: the S3 endpoint does not honour conditional writes (If-None-Match, If-Match on PutObject): create-only and compare-and-swap writes are made atomic by ${config.redisUrl ? 'the shared locks of --redis-url' : 'locks of this process, so this must be the only instance on the bucket (another one is refused at its start)'}.`,
    );
  }
  return driver;
}
