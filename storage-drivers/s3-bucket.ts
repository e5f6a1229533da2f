import { AwsClient } from 'aws4fetch';
import { XMLParser } from 'fast-xml-parser';
import { PathError } from '../src/storage/paths.ts';
import { StorageError } from '../src/storage/types.ts';
import type { ObjectBucket, R2Conditional, R2HttpMetadata, R2ListPage, R2ObjectInfo, R2ObjectWithBody } from './object-store.ts';

/** `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`: never logged, never in a message. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Where the bucket is (`--s3-endpoint`, `--s3-bucket`, `--s3-region`, `--s3-force-path-style`). */
export interface S3Location {
  /** Absent: AWS S3 in the region (`https://s3.<region>.amazonaws.com`). */
  endpoint?: string;
  bucket: string;
  region: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint host>/<key>` (MinIO and most self-hosted servers). */
  forcePathStyle: boolean;
}

/** What the endpoint showed it can do when probed (see S3Bucket.probe). */
export interface S3Features {
  /** It refuses a PutObject whose `If-None-Match: *` or `If-Match` does not hold (412), rather than ignoring the header. */
  conditionalWrites: boolean;
}

/** S3 refuses longer keys (KeyTooLongError). */
export const MAX_KEY_BYTES = 1024;
/** Time to the response's headers (--s3-timeout); a body may stream for longer. */
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const encoder = new TextEncoder();

const xml = new XMLParser({
  ignoreAttributes: true,
  // Keys are text, whatever they look like (`007`, ` padded `).
  parseTagValue: false,
  trimValues: false,
  // Numeric character references (`&#x20AC;`), which S3 may use in keys.
  htmlEntities: true,
  isArray: (tag) => tag === 'Contents' || tag === 'CommonPrefixes',
});

/** The text of an element as fast-xml-parser gives it (a string, or an object with `#text` when mixed). */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return text((value as Record<string, unknown>)['#text']);
  return String(value);
}

/** Percent-encodes a key for a URL path, segment by segment (`/` kept, as S3's canonical request wants). */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

/** A listing's key with `encoding-type=url` (form encoding: `+` is a space). */
function decodeListed(value: string, urlEncoded: boolean): string {
  return urlEncoded ? decodeURIComponent(value.replace(/\+/g, ' ')) : value;
}

function unquote(etag: string | null): string {
  return (etag ?? '').replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** The message of an error a fetch rejected with, with its cause (undici puts ECONNREFUSED there). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  return cause && cause !== message ? `${message} (${cause})` : message;
}

/**
 * One S3 bucket (AWS S3, MinIO, Ceph RGW, R2's S3 API, ...) in the shape the object-store driver uses, over
 * `fetch` with SigV4 signatures from aws4fetch (WebCrypto), so it runs unchanged on Node, Deno and Bun.
 *
 * Requests go to the operator's configured endpoint, never to an address a request chose, so they use the
 * runtime's own `fetch`, not the guarded `Platform.fetch` (whose SSRF rules would refuse a MinIO on a
 * private address). Every failure to get an answer (network, timeout, 5xx, refused credentials, a missing
 * bucket) is a StorageError `Unavailable`, which the HTTP layer answers with 503 and Retry-After.
 */
export class S3Bucket implements ObjectBucket {
  readonly location: S3Location;
  /** Send `If-None-Match` / `If-Match` on puts; off for an endpoint that would ignore or refuse them. */
  conditionalWrites = true;
  private readonly client: AwsClient;
  private readonly base: URL;
  private readonly timeoutMs: number;

  constructor(location: S3Location, credentials: S3Credentials, timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS) {
    this.location = location;
    this.timeoutMs = timeoutMs;
    // One retry for a 5xx or 429 (S3 asks clients to retry those); an endpoint that stays down is a 503 at once.
    this.client = new AwsClient({ ...credentials, service: 's3', region: location.region, retries: 1, initRetryMs: 50 });
    const endpoint = new URL(location.endpoint ?? `https://s3.${location.region}.amazonaws.com`);
    const path = endpoint.pathname.replace(/\/$/, '');
    this.base = location.forcePathStyle
      ? new URL(`${endpoint.origin}${path}/${encodeURIComponent(location.bucket)}/`)
      : new URL(`${endpoint.protocol}//${location.bucket}.${endpoint.host}${path}/`);
  }

  /** The endpoint and bucket, for messages. */
  describe(): string {
    return `bucket "${this.location.bucket}" at ${this.location.endpoint ?? this.base.origin}`;
  }

  private url(key: string, query?: Record<string, string>): string {
    const url = new URL(this.base.href + encodeKey(key));
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    return url.href;
  }

  private async send(method: string, url: string, init: { headers?: Record<string, string>; body?: Uint8Array } = {}): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    try {
      return await this.client.fetch(url, { method, headers: init.headers ?? {}, ...(init.body && { body: init.body as Uint8Array<ArrayBuffer> }), signal: controller.signal });
    } catch (error) {
      throw new StorageError('Unavailable', `cannot reach ${this.describe()}: ${reasonOf(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A failed answer as an Unavailable error naming S3's error code. */
  private async failure(response: Response, what: string): Promise<StorageError> {
    const { code, message } = await s3ErrorOf(response);
    return new StorageError('Unavailable', `${what} in ${this.describe()} failed: ${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`);
  }

  private info(key: string, response: Response, size: number): R2ObjectInfo {
    const etag = unquote(response.headers.get('etag'));
    const modified = response.headers.get('last-modified') ?? response.headers.get('date');
    const uploaded = modified ? new Date(modified) : new Date();
    const contentType = response.headers.get('content-type');
    return { key, etag, size, uploaded, version: `${etag}@${uploaded.getTime()}`, httpMetadata: contentType ? { contentType } : {} };
  }

  async head(key: string): Promise<R2ObjectInfo | null> {
    if (encoder.encode(key).byteLength > MAX_KEY_BYTES) return null;
    const response = await this.send('HEAD', this.url(key));
    if (response.status === 404) return null;
    if (!response.ok) throw await this.failure(response, `HEAD ${key}`);
    return this.info(key, response, Number(response.headers.get('content-length') ?? 0));
  }

  async get(key: string, options?: { range?: { offset: number; length?: number } }): Promise<R2ObjectWithBody | null> {
    if (encoder.encode(key).byteLength > MAX_KEY_BYTES) return null;
    const range = options?.range;
    const headers: Record<string, string> = range ? { range: `bytes=${range.offset}-${range.length === undefined ? '' : range.offset + range.length - 1}` } : {};
    const response = await this.send('GET', this.url(key), { headers });
    if (response.status === 404) {
      // A bucket deleted under a running server is an outage, not a missing resource (a HEAD cannot tell them apart).
      if ((await s3ErrorOf(response)).code === 'NoSuchBucket') throw new StorageError('Unavailable', `there is no ${this.describe()} any more (404 NoSuchBucket)`);
      return null;
    }
    if (response.status === 416) {
      // Past the end: nothing to send, but the object is there.
      await response.body?.cancel();
      const object = await this.head(key);
      return object && { ...object, body: new ReadableStream({ start: (controller) => controller.close() }) };
    }
    if (!response.ok || !response.body) throw await this.failure(response, `GET ${key}`);
    const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
    const info = this.info(key, response, Number(total ?? response.headers.get('content-length') ?? 0));
    // An endpoint that ignores Range sends the whole body (200): the range is cut out here.
    const body = range && response.status === 200 ? response.body.pipeThrough(byteRange(range.offset, range.length)) : response.body;
    return { ...info, body };
  }

  async put(
    key: string,
    value: ArrayBuffer | ArrayBufferView | string | null,
    options?: { onlyIf?: R2Conditional; httpMetadata?: R2HttpMetadata; customMetadata?: Record<string, string> },
  ): Promise<R2ObjectInfo | null> {
    if (encoder.encode(key).byteLength > MAX_KEY_BYTES) throw new PathError(`the path is longer than this storage allows (S3 keys have at most ${MAX_KEY_BYTES} bytes)`);
    const body = typeof value === 'string' ? encoder.encode(value) : value === null ? new Uint8Array() : ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value);
    const headers: Record<string, string> = { 'content-type': options?.httpMetadata?.contentType ?? 'application/octet-stream' };
    for (const [name, metaValue] of Object.entries(options?.customMetadata ?? {})) headers[`x-amz-meta-${name}`] = metaValue;
    const onlyIf = options?.onlyIf;
    if (onlyIf && this.conditionalWrites) {
      if (onlyIf.etagDoesNotMatch === '*') headers['if-none-match'] = '*';
      if (onlyIf.etagMatches !== undefined) headers['if-match'] = `"${onlyIf.etagMatches}"`;
    }
    const response = await this.send('PUT', this.url(key), { headers, body });
    // 409: another conditional write to the key was in flight (AWS); it won.
    if (response.status === 412 || (response.status === 409 && onlyIf && this.conditionalWrites)) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) throw await this.failure(response, `PUT ${key}`);
    await response.body?.cancel();
    const written = this.info(key, response, body.byteLength);
    // PutObject answers no Last-Modified: the server's Date stands in (a HEAD later gives the same second).
    return { ...written, httpMetadata: { contentType: headers['content-type']! } };
  }

  async delete(keys: string | string[]): Promise<void> {
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      if (encoder.encode(key).byteLength > MAX_KEY_BYTES) continue;
      const response = await this.send('DELETE', this.url(key));
      await response.body?.cancel();
      if (!response.ok && response.status !== 404) throw await this.failure(response, `DELETE ${key}`);
    }
  }

  async list(options: { prefix?: string; delimiter?: string; cursor?: string; limit?: number } = {}): Promise<R2ListPage> {
    const query: Record<string, string> = { 'list-type': '2', 'encoding-type': 'url' };
    if (options.prefix) query.prefix = options.prefix;
    if (options.delimiter) query.delimiter = options.delimiter;
    if (options.cursor) query['continuation-token'] = options.cursor;
    if (options.limit !== undefined) query['max-keys'] = String(options.limit);
    const response = await this.send('GET', this.url('', query));
    if (!response.ok) throw await this.failure(response, `listing ${options.prefix || '/'}`);
    const result = (xml.parse(await response.text()) as { ListBucketResult?: Record<string, unknown> }).ListBucketResult;
    if (!result) throw new StorageError('Unavailable', `listing ${options.prefix || '/'} in ${this.describe()}: the answer is not a ListBucketResult`);
    // Servers that ignore `encoding-type` (s3rver) send the keys as they are, and say nothing of it.
    const urlEncoded = text(result.EncodingType) === 'url';
    const objects = ((result.Contents ?? []) as Record<string, unknown>[]).map((entry): R2ObjectInfo => {
      const etag = unquote(text(entry.ETag));
      const uploaded = new Date(text(entry.LastModified));
      return { key: decodeListed(text(entry.Key), urlEncoded), etag, size: Number(text(entry.Size)), uploaded, version: `${etag}@${uploaded.getTime()}` };
    });
    const delimitedPrefixes = ((result.CommonPrefixes ?? []) as Record<string, unknown>[]).map((entry) => decodeListed(text(entry.Prefix), urlEncoded));
    const truncated = text(result.IsTruncated) === 'true';
    const cursor = text(result.NextContinuationToken);
    return { objects, delimitedPrefixes, truncated: truncated && cursor !== '', ...(truncated && cursor && { cursor }) };
  }

  /**
   * Checks, before the server starts, that the bucket is there and the credentials may list, write and
   * delete in it (a one-line error otherwise), and whether the endpoint honours conditional puts: it writes
   * a probe object, then writes it again with `If-None-Match: *` and with a wrong `If-Match`. An endpoint
   * that answers 412 to both has them; one that overwrites (s3rver) or refuses the header has not.
   */
  async probe(probeKey: string): Promise<S3Features> {
    const listed = await this.send('GET', this.url('', { 'list-type': '2', 'max-keys': '1', prefix: probeKey }));
    if (!listed.ok) throw await startupFailure(this, listed);
    await listed.body?.cancel();
    /** The status of a probe write; a 5xx is the endpoint failing, not an answer. */
    const write = async (headers: Record<string, string>) => {
      const response = await this.send('PUT', this.url(probeKey), { headers: { 'content-type': 'text/plain', ...headers }, body: encoder.encode('svc probe') });
      if (response.status >= 500) throw await this.failure(response, 'probing');
      if (!response.ok && response.status !== 412 && Object.keys(headers).length === 0) throw await startupFailure(this, response);
      await response.body?.cancel();
      return response.status;
    };
    try {
      await write({});
      const createOnly = await write({ 'if-none-match': '*' });
      const compareAndSwap = await write({ 'if-match': '"00000000000000000000000000000000"' });
      this.conditionalWrites = createOnly === 412 && compareAndSwap === 412;
      return { conditionalWrites: this.conditionalWrites };
    } finally {
      await this.delete(probeKey).catch(() => undefined);
    }
  }
}

/** Passes on the bytes from `offset`, `length` of them (all the rest without). */
function byteRange(offset: number, length?: number): TransformStream<Uint8Array, Uint8Array> {
  let position = 0;
  const end = length === undefined ? Infinity : offset + length;
  return new TransformStream({
    transform(chunk, controller) {
      const start = Math.max(0, offset - position);
      const stop = Math.min(chunk.byteLength, end - position);
      position += chunk.byteLength;
      if (stop > start) controller.enqueue(chunk.subarray(start, stop));
    },
  });
}

/** S3's `<Error><Code>` and `<Message>` (HEAD answers have no body: both empty). */
async function s3ErrorOf(response: Response): Promise<{ code: string; message: string }> {
  const body = await response.text().catch(() => '');
  if (!body.includes('<Error')) return { code: '', message: '' };
  try {
    const error = (xml.parse(body) as { Error?: Record<string, unknown> }).Error ?? {};
    return { code: text(error.Code), message: text(error.Message) };
  } catch {
    return { code: '', message: '' };
  }
}

/** What a refused startup request means, in the operator's words. */
async function startupFailure(bucket: S3Bucket, response: Response): Promise<StorageError> {
  const { code, message } = await s3ErrorOf(response);
  const said = `${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  const where = bucket.describe();
  if (code === 'NoSuchBucket' || (response.status === 404 && !code)) {
    return new StorageError('Unavailable', `there is no ${where} (${said}): create the bucket, or correct --s3-bucket and --s3-endpoint`);
  }
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'AccessDenied'].includes(code) || response.status === 403) {
    return new StorageError('Unavailable', `${where} refused the credentials (${said}): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and that they may list, read, write and delete in the bucket`);
  }
  if (code === 'PermanentRedirect' || code === 'AuthorizationHeaderMalformed' || response.status === 301) {
    return new StorageError('Unavailable', `${where} is in another region (${said}): correct --s3-region`);
  }
  return new StorageError('Unavailable', `${where} answered ${said}`);
}
