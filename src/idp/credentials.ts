import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { essenceOf } from '../storage/media-types.ts';
import { webIdOf, type IdpContext } from './context.ts';
import { dpopKeyOf } from './dpop-proof.ts';
import { endpointOf, issuerFor } from './issuer.ts';
import { CREDENTIALS_PATH } from './paths.ts';
import { ACCESS_TOKEN_SECONDS, mintAccessToken } from './tokens.ts';

const MAX_BODY_BYTES = 8 * 1024;

/**
 * `POST /idp/credentials` with JSON `email` and `password`: a token for scripts, DPoP-bound when the
 * request carries a DPoP proof, otherwise a Bearer token (which this server's resources accept).
 */
export async function handleCredentials(idp: IdpContext, request: Request): Promise<Response> {
  const type = request.headers.get('content-type');
  if (!type || essenceOf(type) !== 'application/json') {
    throw new HttpProblem(415, 'Send {"email": "...", "password": "..."} with Content-Type: application/json.', { type: 'unsupported-media-type' });
  }
  const body = await readJsonBody(request, MAX_BODY_BYTES, 'The body');
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof fields.email !== 'string' || typeof fields.password !== 'string') {
    throw new HttpProblem(400, 'The body must be a JSON object with "email" and "password" strings.', { type: 'invalid-credentials-request' });
  }
  const jkt = await dpopKeyOf(idp.proofs, request, idp.now());
  const account = await idp.accounts.login(fields.email, fields.password);
  if (!account) throw new HttpProblem(401, 'The email or the password is wrong.', { type: 'invalid-login' });
  const issuer = issuerFor(idp.config, request);
  const webId = webIdOf(idp.config, account, request);
  const grant = { webId, clientId: endpointOf(issuer, CREDENTIALS_PATH), scope: 'openid webid', epoch: await idp.accounts.epochOf(account), ...(jkt && { jkt }) };
  const token = await mintAccessToken(await idp.signingKey(), issuer, grant, idp.now());
  return Response.json(
    { access_token: token, token_type: jkt ? 'DPoP' : 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, webid: webId },
    { headers: { 'Cache-Control': 'no-store' } },
  );
}
