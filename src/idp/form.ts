import { readLimitedText } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { essenceOf } from '../storage/media-types.ts';

const MAX_FORM_BYTES = 16 * 1024;

/** An `application/x-www-form-urlencoded` body (HTML forms, the OAuth token endpoint) as a plain record. */
export async function readForm(request: Request): Promise<Record<string, string>> {
  const type = request.headers.get('content-type');
  if (!type || essenceOf(type) !== 'application/x-www-form-urlencoded') {
    throw new HttpProblem(415, 'Send this form as application/x-www-form-urlencoded.', { type: 'unsupported-media-type' });
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(await readLimitedText(request, MAX_FORM_BYTES))) fields[name] ??= value;
  return fields;
}

/** True when the request carries a form rather than JSON. */
export function isForm(request: Request): boolean {
  const type = request.headers.get('content-type');
  return type !== null && essenceOf(type) === 'application/x-www-form-urlencoded';
}
