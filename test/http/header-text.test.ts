import { describe, expect, it } from 'vitest';
import { headerText } from '../../src/http/header-text.ts';

/** A header value as Node hands it over: one character per byte. */
const asBytes = (text: string) => String.fromCharCode(...new TextEncoder().encode(text));

describe('header text', () => {
  it('reads the bytes of a header value as UTF-8', () => {
    expect(headerText(asBytes('café-日本'))).toBe('café-日本');
    expect(headerText('plain ascii %C3%A9')).toBe('plain ascii %C3%A9');
  });

  it('keeps text a runtime already decoded', () => {
    expect(headerText('日本 café')).toBe('日本 café');
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(headerText('caf\u00e9')).toBeNull();
    expect(headerText(asBytes('ok') + '\u00ff')).toBeNull();
  });
});
