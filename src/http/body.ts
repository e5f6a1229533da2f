import { HttpProblem } from './problem.ts';
import { formatSize } from '../config/sizes.ts';
import { bodyToBytes } from '../storage/body.ts';
import { requireShallowJson } from './nesting.ts';

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, `The request body is larger than the limit of ${formatSize(limit)}.`, { type: 'body-too-large' });
}

/**
 * The request body as a stream that errors with a 413 problem as soon as it passes the limit, so nothing
 * oversized is ever stored. A declared Content-Length above the limit is refused before reading.
 */
export function limitedBody(request: Request, limit: number, refusal: () => HttpProblem = () => tooLarge(limit)): ReadableStream<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw refusal();
  if (!request.body) return new ReadableStream({ start: (controller) => controller.close() });
  let seen = 0;
  return request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(refusal());
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** Whether the request declares a length of at most `bound` bytes, so its body can be read in one step. */
function declaresAtMost(request: Request, bound: number): boolean {
  const declared = request.headers.get('content-length');
  return declared !== null && /^\d+$/.test(declared) && Number(declared) <= bound;
}

/** A body whose declared length was within bounds, read in one step, without a counting stream per chunk; its real size is checked once read. */
async function readDeclared(request: Request, limit: number, refusal: () => HttpProblem): Promise<Uint8Array> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > limit) throw refusal();
  return bytes;
}

/**
 * A body to store: read whole when its declared length is at most `wholeUpTo` bytes (and within the limit),
 * so storage writes it in one step; otherwise the counting stream of `limitedBody`.
 */
export async function storableBody(request: Request, limit: number, wholeUpTo: number): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  if (!declaresAtMost(request, Math.min(limit, wholeUpTo))) return limitedBody(request, limit);
  return readDeclared(request, limit, () => tooLarge(limit));
}

/** Reads a whole (limited) body as text, for documents that must be parsed before storing. */
export async function readLimitedText(request: Request, limit: number, refusal: () => HttpProblem = () => tooLarge(limit)): Promise<string> {
  const bytes = declaresAtMost(request, limit) ? await readDeclared(request, limit, refusal) : await bodyToBytes(limitedBody(request, limit, refusal));
  return decoder.decode(bytes);
}

const decoder = new TextDecoder();

/** A JSON request body, cut off at `limit` bytes; not JSON at all is a 400 naming `what`. */
export async function readJsonBody(request: Request, limit: number, what: string): Promise<unknown> {
  const text = await readLimitedText(request, limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpProblem(400, `${what} is not valid JSON: ${(error as Error).message}`, { type: 'invalid-json' });
  }
  requireShallowJson(value, what);
  return value;
}

/**
 * Whether the request's body holds anything but white space (an empty document); what it read is discarded
 * (the body is not used). Reads until the first other byte, or `budget` bytes of white space, which count as content.
 */
export async function hasContent(request: Request, budget = 64 * 1024): Promise<boolean> {
  if (request.body === null || request.headers.get('content-length') === '0') return false;
  const reader = request.body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      for (const byte of value) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return true;
      // So much white space is no empty document: the rest is not read.
      if ((read += value.byteLength) > budget) return true;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
