import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from '../../src/http/base64url.ts';

describe('fromBase64Url', () => {
  it('decodes what Node decodes, for every length and the whole alphabet, padded or not', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 97 + length * 31) % 256);
      const url = Buffer.from(bytes).toString('base64url');
      const standard = Buffer.from(bytes).toString('base64');
      expect(fromBase64Url(url)).toEqual(new Uint8Array(bytes));
      expect(fromBase64Url(standard)).toEqual(new Uint8Array(bytes));
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(new Uint8Array(bytes));
    }
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    expect(fromBase64Url(alphabet)).toEqual(new Uint8Array(Buffer.from(alphabet, 'base64url')));
  });

  it('throws for characters outside the alphabet and for impossible lengths or padding', () => {
    for (const bad of ['a', 'abcde', 'ab.c', 'ab c', 'ab\ncd', 'é123', 'ab==cd', 'abc==', 'ab=', 'a===', 'YQ=', '====']) {
      expect(() => fromBase64Url(bad), bad).toThrow(TypeError);
    }
  });
});
