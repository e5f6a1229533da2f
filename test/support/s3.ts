import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { S3Driver, type S3Credentials, type S3OpenOptions } from '../../storage-drivers/s3.ts';
import { freePort } from './local-process.ts';

/** The keys s3rver accepts (its built-in account); any other key is refused with InvalidAccessKeyId. */
export const S3RVER_CREDENTIALS: S3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const SERVER_SCRIPT = join(import.meta.dirname, 's3-server.ts');

/** An S3-protocol server (test/support/s3-server.ts) of one test file, on a free loopback port. */
export interface TestS3 {
  /** For --s3-endpoint. */
  endpoint: string;
  /** The bucket it was started with. */
  bucket: string;
  /** The `svc start` flags for a bucket (the test's own, or `prefix` inside the shared one) on this server. */
  args(prefix?: string, bucket?: string): string[];
  /** The environment with its credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY). */
  env: Record<string, string>;
  /** A driver on the bucket, as a command beside the server opens it (no lease). */
  driver(prefix?: string, options?: Partial<S3OpenOptions>): Promise<S3Driver>;
  /** Closes the listening socket and every connection: the endpoint is unreachable, the data stays. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  /** Kills the process by its PID. */
  stop(): Promise<void>;
}

/** Starts the server with the bucket `bucket` (and `extraBuckets`); stop it in afterAll. */
export async function startTestS3(bucket = 'pods', extraBuckets: string[] = []): Promise<TestS3> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '--import', 'tsx', SERVER_SCRIPT, String(port), bucket, ...extraBuckets], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const from = output.length;
      const timer = setTimeout(() => reject(new Error(`the S3 server did not print "${text}":\n${output}`)), 15_000);
      const check = () => {
        if (!output.slice(from).includes(text)) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      };
      child.stdout!.on('data', check);
    });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([waitFor('s3 listening'), exited.then(() => Promise.reject(new Error(`the S3 server exited:\n${output}`)))]);
  const endpoint = `http://127.0.0.1:${port}`;
  const location = (name: string) => ({ endpoint, bucket: name, region: 'us-east-1', forcePathStyle: true });
  return {
    endpoint,
    bucket,
    args: (prefix = '', name = bucket) => ['--storage', 's3', '--s3-endpoint', endpoint, '--s3-bucket', name, '--s3-force-path-style', ...(prefix ? ['--s3-prefix', prefix] : [])],
    env: { AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey },
    driver: (prefix = '', options = {}) => S3Driver.open({ location: location(bucket), credentials: S3RVER_CREDENTIALS, prefix, ...options }),
    async pause() {
      const paused = waitFor('s3 paused');
      process.kill(child.pid!, 'SIGUSR1');
      await paused;
    },
    async resume() {
      const resumed = waitFor('s3 resumed');
      process.kill(child.pid!, 'SIGUSR2');
      await resumed;
    },
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    },
  };
}
