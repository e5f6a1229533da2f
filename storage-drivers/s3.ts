import { toBase64Url } from '../src/http/base64url.ts';
import { KeyedLock } from '../src/storage/keyed-lock.ts';
import type { DeleteOptions, PutBody, PutOptions, PutResult, ResourceMeta } from '../src/storage/types.ts';
import { keyPrefix, ObjectStoreDriver, type ObjectStoreOptions } from './object-store.ts';
import { S3Bucket, type S3Credentials, type S3Features, type S3Location } from './s3-bucket.ts';

export type { S3Credentials, S3Location } from './s3-bucket.ts';

export interface S3DriverOptions extends ObjectStoreOptions {
  location: S3Location;
  credentials: S3Credentials;
  /** How long a request waits for its answer's headers (--s3-timeout); 10 s by default. */
  timeoutMs?: number;
}

export interface S3OpenOptions extends S3DriverOptions {
  /**
   * Opened by the server itself (not by a command beside it): it keeps a lease in the bucket while it runs,
   * reports an unclean stop when it finds a lease no instance renews, and refuses to start beside another
   * running instance when the endpoint has no conditional writes and `shared` is false.
   */
  recover?: boolean;
  /** The instances share locks and counts through `--redis-url`. */
  shared?: boolean;
  /** This process, as its lease names it (host, process id, runtime). */
  instance?: InstanceName;
  /**
   * True when the process a lease names is known to be gone (the runtime's check: same host, and no such
   * process, or this very process, restarted), so its lease need not age before a new start takes over.
   */
  isGone?(other: InstanceName): boolean;
  log?(line: string): void;
}

export interface InstanceName {
  host: string;
  pid: number;
  runtime: string;
}

/** Each running instance rewrites its lease this often... */
const HEARTBEAT_MS = 10_000;
/** ...and one not rewritten for this long belongs to an instance that stopped without removing it. */
const LEASE_MS = 30_000;
/** Leases and the probe object: reserved names (`.svc-tmp…`), never listed nor served. */
const LEASE_NAME = '.svc-tmp-instance-';
const PROBE_NAME = '.svc-tmp-probe-';
/** Left by an instance sharing the bucket through Redis that found another's lease left behind. */
const UNCLEAN_NAME = '.svc-tmp-unclean';

function randomId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(9)));
}

interface Lease {
  key: string;
  instance: InstanceName | null;
  uploaded: number;
}

function describeInstance(instance: InstanceName | null): string {
  return instance ? `${instance.runtime} pid ${instance.pid} on ${instance.host}` : 'unnamed';
}

/**
 * Resources in an S3 bucket (AWS S3, MinIO, Ceph RGW, Garage, R2's S3 API, ...): the layout of
 * ObjectStoreDriver (one object per resource, key = prefix + path, content type as the object's own
 * Content-Type, empty containers as `name/` markers). Where the endpoint honours conditional PutObject
 * (`If-None-Match: *`, `If-Match`), create-only and compare-and-swap are atomic across processes
 * (`crossProcessAtomic`); where it does not, each write of a path runs under a lock of this process, and
 * several instances need `--redis-url`, whose shared locks then take turns (src/cluster/shared-preconditions.ts).
 */
export class S3Driver extends ObjectStoreDriver {
  readonly features: S3Features;
  uncleanStop = false;
  readonly recountsAfterUncleanStop: boolean;
  private readonly s3: S3Bucket;
  /** Per path, where the endpoint cannot make a conditional write atomic by itself. */
  private readonly locks: KeyedLock | null;
  private lease: { key: string; timer: ReturnType<typeof setInterval> } | null = null;

  private constructor(s3: S3Bucket, features: S3Features, options: S3DriverOptions & { recounts: boolean }) {
    super('s3', { ranges: true, crossProcessAtomic: features.conditionalWrites }, s3, options);
    this.s3 = s3;
    this.features = features;
    this.locks = features.conditionalWrites ? null : new KeyedLock();
    this.recountsAfterUncleanStop = options.recounts;
  }

  /**
   * Connects to the bucket: checks that it is there and that the credentials work (throwing an error with a
   * one-line message otherwise) and probes the endpoint for conditional writes.
   */
  static async open(options: S3OpenOptions): Promise<S3Driver> {
    const s3 = new S3Bucket(options.location, options.credentials, options.timeoutMs);
    const features = await s3.probe(keyPrefix(options.prefix) + PROBE_NAME + randomId());
    // The running marker tells a crash from a clean stop only where no other instance shares the leases' meaning.
    const driver = new S3Driver(s3, features, { ...options, recounts: options.recover === true && !options.shared });
    if (options.recover) await driver.takeLease(options);
    return driver;
  }

  private async leases(): Promise<Lease[]> {
    const prefix = this.key('/' + LEASE_NAME);
    const found: Lease[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.s3.list({ prefix, ...(cursor && { cursor }) });
      for (const object of page.objects) found.push({ key: object.key, instance: null, uploaded: object.uploaded.getTime() });
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    // Only a lease young enough to count is read for the process it names.
    const newest = Math.max(...found.map((lease) => lease.uploaded));
    for (const lease of found.filter((lease) => newest - lease.uploaded < LEASE_MS)) {
      const stored = await this.s3.get(lease.key).catch(() => null);
      if (stored) lease.instance = ((await new Response(stored.body).json().catch(() => ({}))) as { instance?: InstanceName }).instance ?? null;
    }
    return found;
  }

  private async takeLease(options: S3OpenOptions): Promise<void> {
    const key = this.key('/' + LEASE_NAME + randomId());
    const body = JSON.stringify({ instance: options.instance ?? null, started: new Date().toISOString() });
    await this.s3.put(key, body, { httpMetadata: { contentType: 'application/json' } });
    // Ages are measured against this lease's upload time, on the endpoint's clock, not this machine's.
    const leases = await this.leases();
    const now = leases.find((lease) => lease.key === key)?.uploaded ?? Date.now();
    const others = leases.filter((lease) => lease.key !== key);
    const gone = (lease: Lease) => now - lease.uploaded >= LEASE_MS || (lease.instance !== null && options.isGone?.(lease.instance) === true);
    const running = others.filter((lease) => !gone(lease));
    if (running.length > 0 && !this.features.conditionalWrites && !options.shared) {
      await this.s3.delete(key).catch(() => undefined);
      const [other] = running;
      const seen = Math.max(0, Math.round((now - other!.uploaded) / 1000));
      throw new Error(
        `another svc instance (${describeInstance(other!.instance)}, seen ${seen} s ago) serves ${this.s3.describe()}, and the endpoint does not honour conditional writes, so two instances could overwrite each other: give every instance the same --redis-url, or stop the other one (if it stopped uncleanly, start again after ${Math.ceil(LEASE_MS / 1000) - seen} s).`,
      );
    }
    // An instance that stopped without removing its lease crashed or was killed: its counts may be behind.
    const stale = others.filter(gone);
    const unclean = this.key('/' + UNCLEAN_NAME);
    if (options.shared) {
      // The counts in Redis stand in, but a later start without it must still recount: one marker says so.
      if (stale.length > 0) await this.s3.put(unclean, '', {});
    } else {
      this.uncleanStop = stale.length > 0 || (await this.s3.head(unclean)) !== null;
      if (this.uncleanStop) await this.s3.delete(unclean);
    }
    for (const lease of stale) await this.s3.delete(lease.key);
    const timer = setInterval(() => {
      void this.s3.put(key, body, { httpMetadata: { contentType: 'application/json' } }).catch((error: unknown) => {
        options.log?.(`storage: could not renew this instance's lease in ${this.s3.describe()}: ${(error as Error).message}`);
      });
    }, HEARTBEAT_MS);
    (timer as { unref?(): void }).unref?.();
    this.lease = { key, timer };
  }

  private serialized<T>(path: string, task: () => Promise<T>): Promise<T> {
    return this.locks ? this.locks.run(path, task) : task();
  }

  override put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null> {
    return this.serialized(path, () => super.put(path, body, options));
  }

  override createContainer(path: string): Promise<PutResult | null> {
    return this.serialized(path, () => super.createContainer(path));
  }

  override delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null> {
    return this.serialized(path, () => super.delete(path, options));
  }

  /** A clean stop: the lease goes, so the next start knows this instance did not crash. */
  async close(): Promise<void> {
    if (!this.lease) return;
    clearInterval(this.lease.timer);
    const { key } = this.lease;
    this.lease = null;
    await this.s3.delete(key).catch(() => undefined);
  }
}
