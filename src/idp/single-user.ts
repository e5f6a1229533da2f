/**
 * `--single-user` with `--idp`: registration makes no pods, but the one pod needs an account to log in
 * with. Its owner makes it at `/idp/register`, proving ownership with the owner token (the bearer token
 * printed at first start, or one from `svc token`).
 */
import { HttpProblem } from '../http/problem.ts';
import { ROOT_POD_WEBID_PATH } from '../pods/single-user.ts';
import { localIriOf, publicUrlOf } from '../pods/subdomains.ts';
import { checkCredentials } from './accounts.ts';
import type { IdpContext } from './context.ts';
import { endpointOf, issuerFor } from './issuer.ts';
import { AUTH_PATH } from './paths.ts';

/** The single-user pod's name and the path of its owner's WebID. */
function singlePod(idp: IdpContext): { name: string; podPath: string; webIdPath: string } {
  const name = idp.config.singleUserName;
  return name === '' ? { name, podPath: '/', webIdPath: ROOT_POD_WEBID_PATH } : { name, podPath: `/${name}/`, webIdPath: `/${name}/#me` };
}

/** Makes the owner's account; `ownerToken` is the bearer token the request or form carries. */
export async function registerSingleUserOwner(idp: IdpContext, request: Request, fields: Record<string, unknown>, ownerToken: string | null): Promise<Response> {
  const { email, password } = checkCredentials(fields.email, fields.password);
  const pod = singlePod(idp);
  const headers = new Headers(ownerToken ? { authorization: `Bearer ${ownerToken}` } : {});
  const caller = await idp.authenticate(new Request(request.url, { headers }));
  if (caller.webId === null || localIriOf(idp.config, new URL(caller.webId)) !== pod.webIdPath) {
    throw new HttpProblem(403, 'This server runs in single-user mode: only its owner makes an account, with the owner token (printed at first start, or `svc token`).', { type: 'registration-disabled' });
  }
  await idp.accounts.create(email, password, pod.name, pod.webIdPath);
  idp.log(`idp: account ${email} made for the single-user pod`);
  const issuer = issuerFor(idp.config, request);
  const url = new URL(request.url);
  return Response.json(
    { webId: publicUrlOf(idp.config, pod.webIdPath, url), podUri: publicUrlOf(idp.config, pod.podPath, url), idpIssuer: issuer, loginUrl: endpointOf(issuer, AUTH_PATH) },
    { status: 201, headers: { 'Cache-Control': 'no-store' } },
  );
}
