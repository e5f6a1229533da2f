/** The bound on one received WebSocket message, the same on every runtime. */

/** Largest message a runtime passes to a socket's handler (Node's `ws` maxPayload, Bun's maxPayloadLength, checked by hand on Deno and Workers). */
export const MAX_SOCKET_MESSAGE_BYTES = 64 * 1024;
/** RFC 6455's close code for a message over it. */
export const CLOSE_TOO_BIG = 1009;

const encoder = new TextEncoder();

/** Whether the UTF-8 form passes `max` bytes; encodes only when the UTF-16 length (1 to 3 bytes a unit) leaves it open. */
export function utf8LongerThan(text: string, max: number): boolean {
  if (text.length * 3 <= max) return false;
  if (text.length > max) return true;
  return encoder.encode(text).byteLength > max;
}

/** Whether a received text message is over the bound: the runtime then closes its socket with CLOSE_TOO_BIG. */
export const isTooBigMessage = (text: string): boolean => utf8LongerThan(text, MAX_SOCKET_MESSAGE_BYTES);
