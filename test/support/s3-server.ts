/**
 * A real S3-protocol server for tests, run as its own process: s3rver 3.7.1 (routing, SigV4 checks, XML
 * answers and errors, ranges, ListObjectsV2) over an object store held in memory.
 *
 *   node --openssl-legacy-provider --import tsx test/support/s3-server.ts <port> <bucket>...
 *
 * s3rver's own store writes each object in place (a reader or a second writer sees half a body), keeps
 * files named after the key plus a suffix (segments past ~230 bytes fail where S3 allows 1,024-byte keys)
 * and lists in directory-walk order. The store below replaces it the way S3 behaves: a PUT replaces the
 * object whole, keys of any length, listings in key order. Like s3rver, it ignores `If-None-Match` and
 * `If-Match` on PUT (no conditional writes), and, like s3rver, counts only keys (not common prefixes)
 * against `max-keys`.
 *
 * Run with --openssl-legacy-provider: s3rver makes ListObjectsV2 continuation tokens with DES.
 *
 * S3_SERVER_LOG=1 prints s3rver's request log (and its errors) to standard output.
 *
 * SIGUSR1 closes the listening socket and every connection (the endpoint is unreachable; the data stays),
 * SIGUSR2 listens again on the same port. Each prints a line when done.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const FilesystemStore = require('s3rver/lib/stores/filesystem');
const S3Object = require('s3rver/lib/models/object');
const S3BucketModel = require('s3rver/lib/models/bucket');

interface Stored {
  content: Buffer;
  metadata: Record<string, string>;
  md5: string;
  modified: Date;
}

interface Bucket {
  created: Date;
  objects: Map<string, Stored>;
  /** The keys of `objects` in order, so a listing reads only the keys it returns. */
  keys: string[];
}

/** The first index whose key is >= `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose key is > `key`. */
function upperBound(keys: readonly string[], key: string): number {
  const index = lowerBound(keys, key);
  return keys[index] === key ? index + 1 : index;
}

/** The metadata s3rver keeps of a PUT's headers (its FilesystemStore.putMetadata). */
function keptMetadata(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-')) kept[name] = value;
  }
  return kept;
}

async function bytesOf(content: Buffer | NodeJS.ReadableStream): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const chunk of content as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

class MemoryStore extends FilesystemStore {
  private readonly buckets = new Map<string, Bucket>();

  /** `directory`: s3rver's, where it would keep bucket configurations (CORS, website) the tests never set. */
  constructor(directory: string) {
    super(directory);
  }

  private metadataOf(stored: Stored): Record<string, string | number> {
    return { ...stored.metadata, etag: JSON.stringify(stored.md5), 'last-modified': stored.modified.toUTCString(), 'content-length': stored.content.length };
  }

  reset() {
    this.buckets.clear();
  }

  async listBuckets() {
    return [...this.buckets].map(([name, bucket]) => new S3BucketModel(name, bucket.created));
  }

  async getBucket(name: string) {
    const bucket = this.buckets.get(name);
    return bucket ? new S3BucketModel(name, bucket.created) : null;
  }

  async putBucket(name: string) {
    if (!this.buckets.has(name)) this.buckets.set(name, { created: new Date(), objects: new Map(), keys: [] });
    return this.getBucket(name);
  }

  async deleteBucket(name: string) {
    this.buckets.delete(name);
  }

  async listObjects(bucketName: string, options: { delimiter?: string; startAfter?: string; prefix?: string; maxKeys?: number }) {
    const { delimiter = '', startAfter = '', prefix = '', maxKeys = Infinity } = options;
    const bucket = this.buckets.get(bucketName);
    const keys = bucket?.keys ?? [];
    const found: string[] = [];
    const commonPrefixes: string[] = [];
    let isTruncated = false;
    // From the first key past both the prefix's start and startAfter, in key order, while under the prefix.
    let index = startAfter >= prefix ? upperBound(keys, startAfter) : lowerBound(keys, prefix);
    while (index < keys.length && keys[index]!.startsWith(prefix)) {
      const key = keys[index]!;
      const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      if (at !== -1) {
        const common = key.slice(0, at + delimiter.length);
        commonPrefixes.push(common);
        // Past every key under the common prefix.
        index = lowerBound(keys, common + '\uffff');
        continue;
      }
      if (found.length >= maxKeys) {
        isTruncated = true;
        break;
      }
      found.push(key);
      index += 1;
    }
    return {
      objects: found.map((key) => new S3Object(bucketName, key, null, this.metadataOf(bucket!.objects.get(key)!))),
      commonPrefixes,
      isTruncated,
    };
  }

  async existsObject(bucket: string, key: string) {
    return this.buckets.get(bucket)?.objects.has(key) ?? false;
  }

  async getObject(bucket: string, key: string, options?: { start?: number; end?: number }) {
    const stored = this.buckets.get(bucket)?.objects.get(key);
    if (!stored) return null;
    const metadata = this.metadataOf(stored);
    const lastByte = Math.max(0, stored.content.length - 1);
    const ranged = options !== undefined && (options.start !== undefined || options.end !== undefined);
    const range = { start: options?.start ?? 0, end: Math.min(options?.end ?? Infinity, lastByte) };
    if (range.start < 0 || range.end < range.start || (ranged && range.start >= stored.content.length)) {
      const object = new S3Object(bucket, key, null, metadata);
      if (ranged) object.range = range;
      return object;
    }
    const object = new S3Object(bucket, key, Readable.from([stored.content.subarray(range.start, range.end + 1)]), metadata);
    if (ranged) object.range = range;
    return object;
  }

  async putObject(object: { bucket: string; key: string; content: Buffer | NodeJS.ReadableStream; metadata: Record<string, string> }) {
    const content = await bytesOf(object.content);
    const md5 = createHash('md5').update(content).digest('hex');
    // Replaced whole, once the body has arrived: a reader sees the old object or the new one.
    this.store(object.bucket, object.key, { content, metadata: keptMetadata(object.metadata), md5, modified: new Date() });
    return { size: content.length, md5 };
  }

  async copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, replacementMetadata?: Record<string, string>) {
    const source = this.buckets.get(srcBucket)!.objects.get(srcKey)!;
    const copy = { ...source, metadata: replacementMetadata ? keptMetadata(replacementMetadata) : source.metadata, modified: new Date() };
    this.store(destBucket, destKey, copy);
    return this.metadataOf(copy);
  }

  async deleteObject(bucketName: string, key: string) {
    const bucket = this.buckets.get(bucketName);
    if (!bucket?.objects.delete(key)) return;
    bucket.keys.splice(lowerBound(bucket.keys, key), 1);
  }

  private store(bucketName: string, key: string, stored: Stored) {
    const bucket = this.buckets.get(bucketName)!;
    if (!bucket.objects.has(key)) bucket.keys.splice(lowerBound(bucket.keys, key), 0, key);
    bucket.objects.set(key, stored);
  }
}

const [portText, ...bucketNames] = process.argv.slice(2);
const port = Number(portText);
const s3rver = new S3rver({ silent: process.env.S3_SERVER_LOG !== '1', directory: mkdtempSync(join(tmpdir(), 's3rver-')), configureBuckets: bucketNames.map((name) => ({ name })) });
s3rver.store = s3rver.context.store = new MemoryStore(s3rver.store.rootDirectory);
await s3rver.configureBuckets();

let server: Server | null = null;
async function listen(): Promise<void> {
  const listening = createServer(s3rver.callback());
  await new Promise<void>((resolve, reject) => listening.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  server = listening;
}

await listen();
// Alive while paused too, when no socket holds the event loop open.
setInterval(() => undefined, 1 << 30);
process.stdout.write(`s3 listening on http://127.0.0.1:${port}\n`);
process.on('SIGUSR1', () => {
  const closing = server;
  server = null;
  closing?.close(() => process.stdout.write('s3 paused\n'));
  closing?.closeAllConnections();
});
process.on('SIGUSR2', () => {
  if (server) return;
  void listen().then(() => process.stdout.write('s3 resumed\n'));
});
