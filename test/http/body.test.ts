import { describe, expect, it } from 'vitest';
import { readLimitedText, storableBody } from '../../src/http/body.ts';
import { HttpProblem } from '../../src/http/problem.ts';

const request = (body: string, contentLength?: string) =>
  new Request('http://pod.test/doc', { method: 'PUT', body, headers: contentLength === undefined ? {} : { 'content-length': contentLength } });

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 'read',
    (error: unknown) => (error instanceof HttpProblem ? error.status : error),
  );

describe('readLimitedText', () => {
  it('reads a body up to the limit, with or without a declared length', async () => {
    expect(await readLimitedText(request('héllo', '6'), 6)).toBe('héllo');
    expect(await readLimitedText(request('héllo'), 6)).toBe('héllo');
    expect(await readLimitedText(request(''), 6)).toBe('');
  });

  it('refuses with 413 a body over the limit, whatever length it declares', async () => {
    expect(await status(readLimitedText(request('x'.repeat(11), '11'), 10))).toBe(413);
    expect(await status(readLimitedText(request('x'.repeat(11)), 10))).toBe(413);
    // A declared length within the limit does not let a longer body through.
    expect(await status(readLimitedText(request('x'.repeat(11), '5'), 10))).toBe(413);
    expect(await status(readLimitedText(request('x'.repeat(11), 'five'), 10))).toBe(413);
  });
});

describe('storableBody', () => {
  it('reads a body declared within both bounds whole, as bytes', async () => {
    const body = await storableBody(request('hello', '5'), 100, 10);
    expect(body).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(body as Uint8Array)).toBe('hello');
  });

  it('streams a body declared longer than wholeUpTo, or not declared', async () => {
    expect(await storableBody(request('hello world', '11'), 100, 10)).toBeInstanceOf(ReadableStream);
    expect(await storableBody(request('hello'), 100, 10)).toBeInstanceOf(ReadableStream);
  });

  it('refuses a declared length over the limit with a 413 before reading', async () => {
    await expect(storableBody(request('hello world', '11'), 5, 64)).rejects.toMatchObject({ status: 413 });
  });
});
