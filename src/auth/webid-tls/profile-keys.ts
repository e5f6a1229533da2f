import type { Quad } from 'n3';
import { normalizedHex, type RsaKey } from './certificate.ts';

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
