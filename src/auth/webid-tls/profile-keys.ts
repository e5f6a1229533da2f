import type { Quad } from 'n3';

/** An RSA public key as WebID profiles state it: the modulus in lower-case hex without leading zeros, the exponent. */
export interface RsaKey {
  modulus: string;
  exponent: bigint;
}

/** Lower case, no leading zeros: how two hexBinary spellings of one number are compared. */
export const normalizedHex = (text: string) => text.trim().toLowerCase().replace(/^0+/, '');

const CERT = 'http://www.w3.org/ns/auth/cert#';

/**
 * The RSA keys a WebID profile states for `webId`: `<webId> cert:key [ cert:modulus "..."^^xsd:hexBinary;
 * cert:exponent 65537 ]`. A key whose modulus is not hex or whose exponent is not an integer is left out.
 */
export function rsaKeysOf(quads: readonly Quad[], webId: string): RsaKey[] {
  const keyNodes = new Set(quads.filter((q) => q.subject.value === webId && q.predicate.value === `${CERT}key` && q.object.termType !== 'Literal').map((q) => `${q.object.termType} ${q.object.value}`));
  const parts = new Map<string, { modulus?: string; exponent?: bigint }>();
  for (const quad of quads) {
    const node = `${quad.subject.termType} ${quad.subject.value}`;
    if (!keyNodes.has(node) || quad.object.termType !== 'Literal') continue;
    const part = parts.get(node) ?? {};
    const value = quad.object.value.trim();
    if (quad.predicate.value === `${CERT}modulus` && /^[0-9a-f]+$/i.test(value)) part.modulus = normalizedHex(value);
    if (quad.predicate.value === `${CERT}exponent` && /^\+?\d+$/.test(value)) part.exponent = BigInt(value.replace('+', ''));
    parts.set(node, part);
  }
  return [...parts.values()].flatMap((part) => (part.modulus !== undefined && part.exponent !== undefined ? [{ modulus: part.modulus, exponent: part.exponent }] : []));
}
