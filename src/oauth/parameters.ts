import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { isForm, readForm } from '../idp/form.ts';
import { essenceOf } from '../storage/media-types.ts';

const MAX_JSON_BYTES = 16 * 1024;

/**
 * The parameters of a request to the token, revocation or apps endpoint: a form (RFC 6749) or a JSON object,
 * which Mastodon accepts too and some of its clients send. Only string values count (numbers become strings).
 */
export async function readParameters(request: Request): Promise<Record<string, unknown>> {
  if (isForm(request)) return readForm(request);
  const type = request.headers.get('content-type');
  if (type && essenceOf(type) === 'application/json') {
    const body = await readJsonBody(request, MAX_JSON_BYTES, 'The body');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpProblem(400, 'Send the parameters as a JSON object.', { type: 'invalid-json' });
    return body as Record<string, unknown>;
  }
  throw new HttpProblem(415, 'Send the parameters as application/x-www-form-urlencoded or application/json.', { type: 'unsupported-media-type' });
}

/** The string parameters only: what the OAuth endpoints read. */
export function stringParameters(parameters: Record<string, unknown>): Record<string, string> {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) {
    if (typeof value === 'string') strings[name] = value;
    else if (typeof value === 'number') strings[name] = String(value);
  }
  return strings;
}
