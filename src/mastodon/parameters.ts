/**
 * Parameters of Mastodon API calls, as its clients send them: JSON (masto, Elk, Phanpy), or a form whose keys
 * follow Rails' nesting (`context[]=home`, `home[last_read_id]=5`, `keywords_attributes[0][keyword]=x`), as
 * Tusky and curl send them. Both come out as the same JSON-like value.
 */
import { readLimitedText } from '../http/body.ts';
import { readParameters } from '../oauth/parameters.ts';
import { essenceOf } from '../storage/media-types.ts';

type Json = Record<string, unknown>;

/** As for the OAuth endpoints' forms: no call here takes more. */
const MAX_FORM_BYTES = 16 * 1024;
/** Nesting deeper than `a[b][c]` is no parameter any endpoint here reads. */
const MAX_KEY_PARTS = 3;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `a[b][]` → `['a', 'b', '']`; null for a key that does not parse. */
function keyParts(key: string): string[] | null {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) return null;
  const parts = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!)];
  return parts.length <= MAX_KEY_PARTS ? parts : null;
}

/** Sets one form field into `target` by its Rails-style key. */
function assign(target: Json, parts: string[], value: string): void {
  const [head, ...rest] = parts as [string, ...string[]];
  if (rest.length === 0) {
    target[head] ??= value;
    return;
  }
  const [next, ...after] = rest as [string, ...string[]];
  if (next === '' && after.length === 0) {
    const list = Array.isArray(target[head]) ? (target[head] as unknown[]) : (target[head] = []);
    list.push(value);
    return;
  }
  if (next === '') {
    // `a[][key]`: the fields of one element until a key repeats, as Rails groups them.
    const list = Array.isArray(target[head]) ? (target[head] as unknown[]) : (target[head] = []);
    let last = list.at(-1);
    if (!isRecord(last) || after[0]! in last) list.push((last = {}));
    assign(last as Json, after, value);
    return;
  }
  const child = isRecord(target[head]) ? (target[head] as Json) : (target[head] = {});
  assign(child, rest, value);
}

/** A flat list of form fields as nested parameters. */
export function nestFields(fields: Iterable<[string, string]>): Json {
  const result: Json = {};
  for (const [key, value] of fields) {
    const parts = keyParts(key);
    if (parts) assign(result, parts, value);
  }
  return result;
}

/** The parameters of a call: JSON as sent; forms (urlencoded or multipart) with their keys nested. */
export async function readApiParameters(request: Request): Promise<Json> {
  const type = request.headers.get('content-type');
  const essence = type ? essenceOf(type) : null;
  if (essence === 'application/x-www-form-urlencoded') {
    return nestFields(new URLSearchParams(await readLimitedText(request, MAX_FORM_BYTES)));
  }
  if (request.body === null && essence === null) return {};
  const parameters = await readParameters(request);
  return essence === 'multipart/form-data' ? nestFields(Object.entries(parameters) as [string, string][]) : parameters;
}

/** The query of a GET call, nested the same way (`id[]=1&id[]=2`, `timeline[]=home`). */
export function queryParameters(url: URL): Json {
  return nestFields(url.searchParams);
}

/** A list parameter, given as an array, as `name[]`, or as one value. */
export function listOf(parameters: Json, name: string): string[] {
  const value = parameters[name];
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  return list.flatMap((item) => (typeof item === 'string' ? [item] : typeof item === 'number' ? [String(item)] : []));
}

/** Rails' truthiness of a boolean parameter: `true`, `1`, `on`, ... */
export function booleanOf(value: unknown, fallback = false): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  return !['false', '0', 'off', 'f', 'no'].includes(String(value).toLowerCase());
}

export function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}
