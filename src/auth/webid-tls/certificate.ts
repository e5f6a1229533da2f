import { RSAPublicKey, id_rsaEncryption } from '@peculiar/asn1-rsa';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, SubjectAlternativeName, id_ce_subjectAltName } from '@peculiar/asn1-x509';
import { isWebIdUrl } from '../../http/http-url.ts';
import { normalizedHex, type RsaKey } from './profile-keys.ts';

export { normalizedHex, type RsaKey };


/** What WebID-TLS reads from a client certificate. */
export interface ClientCertificate {
  /** The http(s) URIs of its SubjectAlternativeName: the WebIDs it claims. */
  webIds: string[];
  /** Null when the key is not RSA (WebID profiles state only RSA keys: `cert:RSAPublicKey`). */
  key: RsaKey | null;
  notBefore: number;
  notAfter: number;
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');


/** Reads a DER certificate; throws an Error when it is not one. */
export function readClientCertificate(der: Uint8Array): ClientCertificate {
  const certificate = AsnConvert.parse(der, Certificate);
  const tbs = certificate.tbsCertificate;
  const sanExtension = tbs.extensions?.find((extension) => extension.extnID === id_ce_subjectAltName);
  const names = sanExtension ? AsnConvert.parse(sanExtension.extnValue.buffer, SubjectAlternativeName) : [];
  const webIds = names.flatMap((name) => (isWebIdUrl(name.uniformResourceIdentifier) ? [name.uniformResourceIdentifier] : []));
  const spki = tbs.subjectPublicKeyInfo;
  let key: RsaKey | null = null;
  if (spki.algorithm.algorithm === id_rsaEncryption) {
    const rsa = AsnConvert.parse(spki.subjectPublicKey, RSAPublicKey);
    key = { modulus: normalizedHex(hex(rsa.modulus)), exponent: BigInt(`0x${hex(rsa.publicExponent) || '0'}`) };
  }
  return { webIds, key, notBefore: tbs.validity.notBefore.getTime().getTime(), notAfter: tbs.validity.notAfter.getTime().getTime() };
}
