import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizedHex, readClientCertificate } from '../../../src/auth/webid-tls/certificate.ts';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cert-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** An openssl-made certificate as DER, with openssl's own reading of its modulus. */
async function certificate(name: string, newkey: string[], san?: string): Promise<{ der: Uint8Array; modulus: string }> {
  const pem = join(dir, `${name}.pem`);
  await run('openssl', ['req', '-x509', ...newkey, '-nodes', '-keyout', join(dir, `${name}.key`), '-out', pem, '-days', '1', '-subj', `/CN=${name}`, ...(san ? ['-addext', `subjectAltName=${san}`] : [])]);
  const der = join(dir, `${name}.der`);
  await run('openssl', ['x509', '-in', pem, '-outform', 'DER', '-out', der]);
  const modulus = newkey.includes('rsa:2048') ? (await run('openssl', ['x509', '-noout', '-modulus', '-in', pem])).stdout.trim().replace('Modulus=', '') : '';
  return { der: new Uint8Array(await readFile(der)), modulus };
}

describe('readClientCertificate', () => {
  it('reads the http(s) URIs of the SubjectAlternativeName and the RSA key', async () => {
    const { der, modulus } = await certificate('rsa', ['-newkey', 'rsa:2048'], 'URI:https://alice.example/card\\#me,DNS:alice.example,URI:urn:uuid:1,URI:http://bob.example/\\#i');
    const read = readClientCertificate(der);
    expect(read.webIds).toEqual(['https://alice.example/card#me', 'http://bob.example/#i']);
    expect(read.key).toEqual({ modulus: normalizedHex(modulus), exponent: 65537n });
    expect(read.notAfter).toBeGreaterThan(read.notBefore);
  });

  it('takes no URI with a user name or password in it as a WebID', async () => {
    const { der } = await certificate('userinfo', ['-newkey', 'rsa:2048'], 'URI:https://mallory:x@alice.example/card\\#me,URI:https://bob@alice.example/card\\#me,URI:https://carol.example/\\#i');
    expect(readClientCertificate(der).webIds).toEqual(['https://carol.example/#i']);
  });

  it('has no WebIDs without a SubjectAlternativeName, and no key for a non-RSA certificate', async () => {
    expect(readClientCertificate((await certificate('plain', ['-newkey', 'rsa:2048'])).der).webIds).toEqual([]);
    const ec = readClientCertificate((await certificate('ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], 'URI:https://alice.example/card\\#me')).der);
    expect(ec.webIds).toEqual(['https://alice.example/card#me']);
    expect(ec.key).toBeNull();
  });

  it('throws on bytes that are not a certificate', () => {
    expect(() => readClientCertificate(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]))).toThrow();
  });
});
