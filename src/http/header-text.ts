/**
 * Header values arrive as byte strings on Node (and @hono/node-server passes them on as they are): each
 * byte one character, so UTF-8 text such as a raw `Slug: café` reads as `cafÃ©`. Runtimes that already
 * decoded the bytes hand over characters above U+00FF, which are kept as they are.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a header value read as UTF-8; null when its bytes are not UTF-8. */
export function headerText(value: string): string | null {
  // Plain ASCII, or text a runtime already decoded.
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  const bytes = Uint8Array.from(value, (char) => char.charCodeAt(0));
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
