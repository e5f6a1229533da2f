import { HttpProblem } from '../http/problem.ts';

/**
 * An OAuth 2.0 error answer (RFC 6749 §5.2): problem+json like every error of the server, with the
 * `error` and `error_description` members OAuth clients read.
 */
export function oauthError(status: number, error: string, description: string, headers?: HeadersInit): HttpProblem {
  return new HttpProblem(status, description, { type: `oauth-${error}`, headers, extra: { error, error_description: description } });
}
