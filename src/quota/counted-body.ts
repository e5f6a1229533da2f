import type { PutBody } from '../storage/types.ts';

const encoder = new TextEncoder();

/**
 * Tells `grow` how large a write's body is before it is stored: at once (`complete`) when the size is known,
 * else as each chunk of a stream passes, so a write over the limit stops while it streams. `grow` throws
 * (the quota problem) to refuse; the returned body is the one to store.
 */
export async function countedBody(body: PutBody, grow: (size: number, complete: boolean) => void | Promise<void>): Promise<PutBody> {
  const size = typeof body === 'string' ? encoder.encode(body).byteLength : body instanceof Uint8Array ? body.byteLength : undefined;
  if (size !== undefined) {
    await grow(size, true);
    return body;
  }
  let seen = 0;
  return (body as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        seen += chunk.byteLength;
        try {
          await grow(seen, false);
          controller.enqueue(chunk);
        } catch (problem) {
          controller.error(problem);
        }
      },
    }),
  );
}
