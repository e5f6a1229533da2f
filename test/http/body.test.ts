import { describe, expect, it } from 'vitest';
import { readLimitedText } from '../../src/http/body.ts';
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
