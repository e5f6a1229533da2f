/**
 * Which errors of the MongoDB driver mean "the database cannot be reached now" (503 + Retry-After) rather than
 * a wrong request or a defect (500): the driver's own error classes, as it throws them during outages and
 * reconnections, including those of its connection pool that the package does not export.
 */
import { createRequire } from 'node:module';
import * as mongodb from 'mongodb';
import { describe, expect, it } from 'vitest';
import { databaseUnavailable } from '../../runtimes/node/docdb.ts';

type ErrorClass = new (...args: never[]) => Error;
// The pool's errors are not exported by the package; these are the driver's own classes all the same.
const { PoolClearedError, PoolClosedError, WaitQueueTimeoutError } = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js') as Record<string, ErrorClass>;

const pool = { address: '127.0.0.1:27017', serverError: undefined } as never;
const unavailable = (error: unknown) => databaseUnavailable(mongodb, error);

function socketError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('errors that mean the database cannot be reached now', () => {
  it('the pool closed under a request waiting for a connection (a reconnection that failed closes it)', () => {
    expect(unavailable(new PoolClosedError!(pool))).toBe(true);
  });

  it('the pool cleared or a checkout that timed out', () => {
    expect(unavailable(new PoolClearedError!(pool))).toBe(true);
    expect(unavailable(new WaitQueueTimeoutError!('Timed out while checking out a connection from connection pool' as never, '127.0.0.1:27017' as never))).toBe(true);
  });

  it('the topology: closed, not connected, no server selected, the client closed by the shutdown', () => {
    expect(unavailable(new mongodb.MongoTopologyClosedError())).toBe(true);
    expect(unavailable(new mongodb.MongoNotConnectedError('Client must be connected before running operations'))).toBe(true);
    expect(unavailable(new mongodb.MongoServerSelectionError('Server selection timed out after 2000 ms', {} as never))).toBe(true);
    expect(unavailable(new mongodb.MongoClientClosedError())).toBe(true);
    expect(unavailable(new mongodb.MongoServerClosedError())).toBe(true);
  });

  it('network errors, raw socket errors the driver passes on, and wrappers of them', () => {
    expect(unavailable(new mongodb.MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'))).toBe(true);
    expect(unavailable(new mongodb.MongoNetworkTimeoutError('connection timed out'))).toBe(true);
    expect(unavailable(socketError('EPIPE', 'This socket has been ended by the other party'))).toBe(true);
    expect(unavailable(socketError('ERR_STREAM_WRITE_AFTER_END', 'write after end'))).toBe(true);
    expect(unavailable(socketError('ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed'))).toBe(true);
    expect(unavailable(new mongodb.MongoRuntimeError('wrapped', { cause: socketError('ECONNRESET', 'read ECONNRESET') }))).toBe(true);
  });

  it('server answers that say "not now": shutting down, stepped down, labelled retryable', () => {
    expect(unavailable(new mongodb.MongoServerError({ code: 91, errmsg: 'The server is in quiesce mode and will shut down' }))).toBe(true);
    expect(unavailable(new mongodb.MongoServerError({ code: 10107, errmsg: 'not primary' }))).toBe(true);
    expect(unavailable(new mongodb.MongoServerError({ code: 2, errmsg: 'anything', errorLabels: ['RetryableWriteError'] }))).toBe(true);
  });
});

describe('errors that are not an outage', () => {
  it('a duplicate key, a refused document, a wrong argument, a defect', () => {
    expect(unavailable(new mongodb.MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' }))).toBe(false);
    expect(unavailable(new mongodb.MongoServerError({ code: 10334, errmsg: 'BSONObj size is invalid' }))).toBe(false);
    expect(unavailable(new mongodb.MongoInvalidArgumentError('bad filter'))).toBe(false);
    expect(unavailable(new TypeError('x is undefined'))).toBe(false);
    expect(unavailable('not an error')).toBe(false);
  });
});
