/** `/idp/register`: a new account with its pod, from the HTML form or from JSON. */
import { readJsonBody } from '../http/body.ts';
import { HttpProblem, PROBLEM_TYPE_BASE } from '../http/problem.ts';
import type { IdpContext } from './context.ts';
import { isForm, readForm } from './form.ts';
import { page, registeredPage, registerPage } from './pages.ts';
import { checkCsrf, csrfFor } from './session.ts';
import { registerSingleUserOwner } from './single-user.ts';

const MAX_BODY_BYTES = 16 * 1024;

/** The form field each refusal of a registration concerns (by its problem type), so the page shows it there. */
const FIELD_OF_PROBLEM: Record<string, string> = {
  'invalid-email': 'email',
  'account-exists': 'email',
  'invalid-password': 'password',
  'invalid-pod-name': 'name',
  'reserved-pod-name': 'name',
  'pod-exists': 'name',
  'invite-invalid': 'invite',
  'invite-exhausted': 'invite',
  'invite-revoked': 'invite',
};

function fieldOf(error: HttpProblem, singleUser: boolean): { errorField?: string } {
  const slug = error.type.startsWith(PROBLEM_TYPE_BASE) ? error.type.slice(PROBLEM_TYPE_BASE.length) : '';
  // In single-user mode the one refusal of a well-formed form is the owner token's.
  const named = singleUser && slug === 'registration-disabled' ? 'token' : FIELD_OF_PROBLEM[slug];
  return named ? { errorField: named } : {};
}

export function showRegistration(idp: IdpContext, request: Request): Response {
  const csrf = csrfFor(request);
  const response = page('Register', registerPage({ csrf: csrf.value, inviteOnly: idp.config.inviteOnly, singleUser: idp.config.singleUser }));
  if (csrf.setCookie) response.headers.append('Set-Cookie', csrf.setCookie);
  return response;
}

/**
 * Creates the account and its pod through `POST /.pods` (so invites, quotas and profile hooks apply alike);
 * in single-user mode, the account of the one pod, for its owner.
 */
async function createThroughPods(idp: IdpContext, request: Request, fields: Record<string, unknown>): Promise<Response> {
  if (idp.config.singleUser) {
    const header = request.headers.get('authorization');
    const token = typeof fields.token === 'string' && fields.token ? fields.token : header && /^bearer\s/i.test(header) ? header.slice(7).trim() : null;
    return registerSingleUserOwner(idp, request, fields, token);
  }
  const podRequest = new Request(new URL('/.pods', request.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: fields.name, email: fields.email, password: fields.password, ...(fields.invite !== undefined && { invite: fields.invite }) }),
  });
  return idp.createPod(podRequest);
}

export async function submitRegistration(idp: IdpContext, request: Request): Promise<Response> {
  if (!isForm(request)) {
    const body = await readJsonBody(request, MAX_BODY_BYTES, 'The body');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new HttpProblem(400, 'Send {"email", "password", "name"} (and "invite" on an invite-only server) as a JSON object.', { type: 'invalid-registration' });
    }
    return createThroughPods(idp, request, body as Record<string, unknown>);
  }
  const form = await readForm(request);
  checkCsrf(request, form.csrf);
  const view = { csrf: form.csrf!, inviteOnly: idp.config.inviteOnly, singleUser: idp.config.singleUser, email: form.email, name: form.name, invite: form.invite };
  try {
    const created = (await (await createThroughPods(idp, request, form)).json()) as { webId: string; podUri: string };
    return page('Your account is ready', registeredPage(created.webId, created.podUri), 201);
  } catch (error) {
    if (!(error instanceof HttpProblem) || error.status >= 500) throw error;
    return page('Register', registerPage({ ...view, error: error.message, ...fieldOf(error, idp.config.singleUser) }), error.status);
  }
}
