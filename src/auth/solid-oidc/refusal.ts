import type { CredentialErrorCode } from '../authenticate.ts';

/** Why DPoP credentials were refused, with the `error` code of the challenge: the token or the proof. */
export class CredentialRefusal extends Error {
  readonly code: CredentialErrorCode;

  constructor(code: CredentialErrorCode, reason: string) {
    super(reason);
    this.name = 'CredentialRefusal';
    this.code = code;
  }
}

export const invalidProof = (reason: string) => new CredentialRefusal('invalid_dpop_proof', reason);
export const invalidToken = (reason: string) => new CredentialRefusal('invalid_token', reason);
