/**
 * The MongoDB-backed document store for `--docdb`. One collection, `documents`, keyed by the document's path
 * in `_id`: a GET is a lookup in the `_id` index, a listing an anchored prefix regex on it (an index range),
 * a create-only write leans on the uniqueness of `_id`, and a replace or delete carries the version it expects
 * in its filter, so the database decides atomically. The driver reconnects by itself after an outage; until
 * then, operations fail fast with DocumentStoreUnavailable. A database that was down when the server
 * started is connected to again by the store itself (see `reconnect`).
 */
import type { Collection, MongoClient } from 'mongodb';
import { ConfigError } from '../../src/config/resolve.ts';
import { DocumentStoreUnavailable, type DocumentMembers, type DocumentStore, type StoredDocument } from '../../src/docdb/store.ts';

interface DocumentRecord {
  _id: string;
  body: string;
  version: string;
  size: number;
  modified: Date;
}

/** How long an operation waits for a reachable server before the request gets its 503. */
const SERVER_SELECTION_TIMEOUT_MS = 2000;
/** The least time between two attempts to connect again, whatever the number of requests. */
const RECONNECT_INTERVAL_MS = 1000;
const DUPLICATE_KEY = 11000;
/** Server errors that mean "not now" rather than "wrong": shutdown in progress, stepped-down or recovering primaries. */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** Labels the driver puts on errors worth a retry, whatever their class. */
const TRANSIENT_LABELS = ['RetryableWriteError', 'ResetPool', 'RetryableError', 'SystemOverloadedError'];
/**
 * Connection-pool errors the package does not export, by their names. A reconnection whose first checkout
 * fails closes its topology, and with it the pool under the requests waiting there for a connection: they
 * get MongoPoolClosedError (a 500 before, when an outage met a load of requests).
 */
const POOL_ERROR_NAMES = new Set(['MongoPoolClosedError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError', 'MongoWaitQueueTimeoutError']);
/**
 * Socket errors the driver can pass on as they are, e.g. a write to a connection the server has just closed
 * ("This socket has been ended by the other party", EPIPE) by the first request after the database stops.
 */
const SOCKET_ERROR_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

type MongoModule = typeof import('mongodb');

/** Whether an error of the driver (or of its sockets) means the database cannot be reached now, rather than a wrong request. */
export function databaseUnavailable(mongodb: MongoModule, error: unknown, depth = 0): boolean {
  if (!(error instanceof Error)) return false;
  if (
    error instanceof mongodb.MongoNetworkError ||
    error instanceof mongodb.MongoServerSelectionError ||
    error instanceof mongodb.MongoNotConnectedError ||
    error instanceof mongodb.MongoTopologyClosedError ||
    error instanceof mongodb.MongoServerClosedError ||
    error instanceof mongodb.MongoClientClosedError ||
    error instanceof mongodb.MongoOperationTimeoutError ||
    POOL_ERROR_NAMES.has(error.name) ||
    SOCKET_ERROR_CODES.has(String((error as { code?: unknown }).code))
  ) {
    return true;
  }
  if (error instanceof mongodb.MongoError && TRANSIENT_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (error instanceof mongodb.MongoServerError) return UNAVAILABLE_CODES.has(Number(error.code));
  // A wrapper (the driver's or a stream's) of one of the above.
  return depth < 3 && databaseUnavailable(mongodb, error.cause, depth + 1);
}

/** The connection string without user and password, for log lines. */
export function describeUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Connects lazily: the client is made at once, the first operation (the startup ping) opens the connection. */
export async function openMongoDocumentStore(url: string, database: string): Promise<DocumentStore> {
  const mongodb = await import('mongodb');
  let client: MongoClient;
  try {
    client = new mongodb.MongoClient(url, { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS, connectTimeoutMS: SERVER_SELECTION_TIMEOUT_MS });
  } catch (error) {
    throw new ConfigError(`--docdb-url ${describeUrl(url)} is not a MongoDB connection string: ${(error as Error).message}`);
  }
  const description = `MongoDB at ${describeUrl(url)}, database ${database}`;
  const documents: Collection<DocumentRecord> = client.db(database).collection<DocumentRecord>('documents');

  const isUnavailable = (error: unknown): boolean => databaseUnavailable(mongodb, error);

  /**
   * When its first connection fails, the driver (7.x) closes its topology for good: every later operation
   * throws MongoTopologyClosedError, even once the database answers, until `connect()` is called again.
   * One attempt at a time, at most one per RECONNECT_INTERVAL_MS; requests meanwhile get their 503.
   */
  let reconnecting: Promise<void> | null = null;
  let lastAttempt = 0;
  const reconnect = () => {
    if (reconnecting || Date.now() - lastAttempt < RECONNECT_INTERVAL_MS) return;
    lastAttempt = Date.now();
    reconnecting = client
      .connect()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (reconnecting = null));
  };

  const guarded = async <T>(what: string, operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof mongodb.MongoTopologyClosedError || error instanceof mongodb.MongoNotConnectedError) reconnect();
      if (isUnavailable(error)) throw new DocumentStoreUnavailable(`${what}: ${description} is unreachable (${(error as Error).message})`, { cause: error });
      throw error;
    }
  };

  const toDocument = (record: DocumentRecord): StoredDocument => ({
    id: record._id,
    body: record.body,
    version: record.version,
    size: record.size,
    modified: record.modified.getTime(),
  });
  const toRecord = (document: StoredDocument): DocumentRecord => ({
    _id: document.id,
    body: document.body,
    version: document.version,
    size: document.size,
    modified: new Date(document.modified),
  });

  return {
    description,
    get: (id) =>
      guarded(`reading ${id}`, async () => {
        const record = await documents.findOne({ _id: id });
        return record ? toDocument(record) : null;
      }),
    create: (document) =>
      guarded(`creating ${document.id}`, async () => {
        try {
          await documents.insertOne(toRecord(document));
          return true;
        } catch (error) {
          if (error instanceof mongodb.MongoServerError && error.code === DUPLICATE_KEY) return false;
          throw error;
        }
      }),
    replace: (document, expectedVersion) =>
      guarded(`writing ${document.id}`, async () => {
        const result = await documents.replaceOne({ _id: document.id, version: expectedVersion }, toRecord(document));
        return result.matchedCount === 1;
      }),
    remove: (id, expectedVersion) =>
      guarded(`deleting ${id}`, async () => (await documents.deleteOne({ _id: id, version: expectedVersion })).deletedCount === 1),
    members: (container) =>
      guarded(`listing ${container}`, async () => {
        const prefix = '^' + escapeRegex(container);
        const members: DocumentMembers = { documents: [], containers: [] };
        // Documents directly in the container: one range of the _id index (the regex's literal prefix bounds it).
        const direct = documents.find({ _id: { $regex: prefix + '[^/]+$' } }, { projection: { _id: 1 } }).sort({ _id: 1 });
        for await (const record of direct) members.documents.push(record._id);
        // Child containers: one index seek each, skipping past every id under the container just found
        // ('0' is the character after '/', so `<child>0` sorts after all of `<child>/...`).
        let after = container;
        for (;;) {
          const next = await documents.findOne({ _id: { $gt: after, $regex: prefix + '[^/]+/' } }, { sort: { _id: 1 }, projection: { _id: 1 } });
          if (!next) break;
          const child = next._id.slice(0, next._id.indexOf('/', container.length) + 1);
          members.containers.push(child);
          after = child.slice(0, -1) + '0';
        }
        return members;
      }),
    usage: (container) =>
      guarded(`measuring ${container}`, async () => {
        // One range of the _id index; the database adds the sizes up.
        const [sum] = await documents.aggregate<{ total: number }>([{ $match: { _id: { $regex: '^' + escapeRegex(container) } } }, { $group: { _id: null, total: { $sum: '$size' } } }]).toArray();
        return sum?.total ?? 0;
      }),
    ping: () => guarded('connecting', async () => void (await client.db(database).command({ ping: 1 }))),
    close: async () => {
      await reconnecting;
      await client.close();
    },
  };
}
