/** Upper-case letters and digits without the look-alikes O, 0, I, 1 and L. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

/** Largest multiple of the alphabet size below 256, so every character is equally likely. */
const UNBIASED_LIMIT = 256 - (256 % CODE_ALPHABET.length);

export function generateInviteCode(): string {
  let code = '';
  while (code.length < CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(CODE_LENGTH * 2))) {
      if (byte < UNBIASED_LIMIT && code.length < CODE_LENGTH) code += CODE_ALPHABET[byte % CODE_ALPHABET.length];
    }
  }
  return code;
}

/** What a person types, made comparable: case and surrounding spaces do not matter. */
export function normalizeInviteCode(text: string): string {
  return text.trim().toUpperCase();
}
