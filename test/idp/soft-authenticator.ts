/**
 * A software WebAuthn authenticator for handler tests: ES256 keys in Web Crypto, "none" attestation, a
 * signature counter, and answers in the JSON form browsers give (`credential.toJSON()`). Runtime-free, so
 * it can drive the server on any runtime. Each field can be changed to make a bad answer.
 */
import { fromBase64Url, toBase64Url } from '../../src/http/base64url.ts';

type CborValue = number | string | Uint8Array | Map<CborValue, CborValue>;

function cborHead(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 256) return [(major << 5) | 24, length];
  return [(major << 5) | 25, length >> 8, length & 0xff];
}

/** The few CBOR shapes attestation objects and COSE keys need (RFC 8949). */
export function cbor(value: CborValue): Uint8Array {
  if (typeof value === 'number') return Uint8Array.from(value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value));
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return concat(Uint8Array.from(cborHead(3, bytes.length)), bytes);
  }
  if (value instanceof Uint8Array) return concat(Uint8Array.from(cborHead(2, value.length)), value);
  return concat(Uint8Array.from(cborHead(5, value.size)), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)]));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const result = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
const uint32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** ECDSA signatures from Web Crypto are r||s; WebAuthn carries them DER-encoded. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    const body = trimmed[0]! & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed;
    return concat(Uint8Array.of(0x02, body.length), body);
  };
  const sequence = concat(integer(raw.subarray(0, 32)), integer(raw.subarray(32)));
  return concat(Uint8Array.of(0x30, sequence.length), sequence);
}

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface AnswerOptions {
  origin?: string;
  /** The challenge to sign instead of the one in the options. */
  challenge?: string;
  counter?: number;
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentialId = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  counter = 0;
  userHandle: string | null = null;
  #keys: Promise<CryptoKeyPair> = crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

  readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  #clientData(type: string, challenge: string, origin: string): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Answers `generateRegistrationOptions` output as `navigator.credentials.create` would. */
  async create(options: { challenge: string; rp: { id: string }; user: { id: string } }, answer: AnswerOptions = {}): Promise<Record<string, unknown>> {
    this.userHandle = options.user.id;
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', (await this.#keys).publicKey));
    const coseKey = cbor(new Map<CborValue, CborValue>([[1, 2], [3, -7], [-1, 1], [-2, raw.subarray(1, 33)], [-3, raw.subarray(33)]]));
    const id = fromBase64Url(this.credentialId);
    const flags = UP | AT | (answer.userVerified === false ? 0 : UV);
    const authData = concat(await sha256(new TextEncoder().encode(options.rp.id)), Uint8Array.of(flags), uint32(this.counter), new Uint8Array(16), Uint8Array.of(id.length >> 8, id.length & 0xff), id, coseKey);
    const attestationObject = cbor(new Map<CborValue, CborValue>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    const clientData = this.#clientData('webauthn.create', answer.challenge ?? options.challenge, answer.origin ?? this.origin);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: toBase64Url(clientData), attestationObject: toBase64Url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** Answers `generateAuthenticationOptions` output as `navigator.credentials.get` would; raises the counter. */
  async get(options: { challenge: string; rpId: string }, answer: AnswerOptions = {}): Promise<Record<string, unknown>> {
    this.counter = answer.counter ?? this.counter + 1;
    const flags = UP | (answer.userVerified === false ? 0 : UV);
    const authData = concat(await sha256(new TextEncoder().encode(options.rpId)), Uint8Array.of(flags), uint32(this.counter));
    const clientData = this.#clientData('webauthn.get', answer.challenge ?? options.challenge, answer.origin ?? this.origin);
    const signed = concat(authData, await sha256(clientData));
    const signature = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, (await this.#keys).privateKey, signed as Uint8Array<ArrayBuffer>));
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: toBase64Url(clientData), authenticatorData: toBase64Url(authData), signature: toBase64Url(derSignature(signature)), ...(this.userHandle && { userHandle: this.userHandle }) },
      clientExtensionResults: {},
    };
  }
}
