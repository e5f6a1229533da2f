import { limitedBody, readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { isForm, readForm } from '../idp/form.ts';
import { essenceOf } from '../storage/media-types.ts';

const MAX_BODY_BYTES = 16 * 1024;

/** A `multipart/form-data` body (the `masto` client sends its token and revocation requests so): its text fields. */
async function readMultipart(request: Request, type: string): Promise<Record<string, string>> {
  let data: FormData;
  try {
    data = await new Response(limitedBody(request, MAX_BODY_BYTES), { headers: { 'content-type': type } }).formData();
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new HttpProblem(400, 'The multipart/form-data body cannot be read.', { type: 'invalid-form' });
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of data) if (typeof value === 'string') fields[name] ??= value;
  return fields;
}

/**
 * The parameters of a request to the token, revocation or apps endpoint: a form (RFC 6749; urlencoded or
 * multipart) or a JSON object, which Mastodon accepts too and its clients send. The OAuth endpoints read the
 * string values only (see `stringParameters`).
 */
export async function readParameters(request: Request): Promise<Record<string, unknown>> {
  if (isForm(request)) return readForm(request);
  const type = request.headers.get('content-type');
  const essence = type ? essenceOf(type) : null;
  if (essence === 'multipart/form-data') return readMultipart(request, type!);
  if (essence === 'application/json') {
    const body = await readJsonBody(request, MAX_BODY_BYTES, 'The body');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpProblem(400, 'Send the parameters as a JSON object.', { type: 'invalid-json' });
    return body as Record<string, unknown>;
  }
  throw new HttpProblem(415, 'Send the parameters as application/x-www-form-urlencoded, multipart/form-data or application/json.', { type: 'unsupported-media-type' });
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
