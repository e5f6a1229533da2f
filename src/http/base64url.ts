/** base64url without padding (RFC 4648 §5), for tokens and tags that travel in URLs and headers. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The value of each ASCII character in base64url, or in base64 (`+` and `/`); -1 for any other. */
const SEXTETS = new Int8Array(128).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'].forEach((char, value) => (SEXTETS[char.charCodeAt(0)] = value));
SEXTETS['-'.charCodeAt(0)] = SEXTETS['+'.charCodeAt(0)] = 62;
SEXTETS['_'.charCodeAt(0)] = SEXTETS['/'.charCodeAt(0)] = 63;
const PAD = '='.charCodeAt(0);

/**
 * Decodes base64url (or base64), padded or not; throws a TypeError for any other character or an
 * impossible length. A table lookup per character: it decodes every DPoP proof, so it is kept cheap.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === PAD) end--;
  if (end % 4 === 1 || text.length - end > 2 || (end < text.length && text.length % 4 !== 0)) throw new TypeError('not base64url: impossible length or padding');
  const bytes = new Uint8Array((end * 3) >> 2);
  let pending = 0;
  let bits = 0;
  let at = 0;
  for (let index = 0; index < end; index++) {
    const code = text.charCodeAt(index);
    const sextet = code < 128 ? SEXTETS[code]! : -1;
    if (sextet < 0) throw new TypeError(`not base64url: ${JSON.stringify(text[index])} at ${index}`);
    pending = (pending << 6) | sextet;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = pending >> bits;
      pending &= (1 << bits) - 1;
    }
  }
  return bytes;
}
