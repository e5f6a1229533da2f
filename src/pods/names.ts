import { HttpProblem } from '../http/problem.ts';

/** What a pod name may look like: lower-case letters, digits, `-` and `_`, 1 to 63 characters. */
export const POD_NAME = /^[a-z0-9_-]{1,63}$/;

/** Top-level names the server uses now or will use for its own routes and features. */
export const RESERVED_POD_NAMES: ReadonlySet<string> = new Set([
  'activitypub', 'admin', 'api', 'ap', 'assets', 'auth', 'common', 'databrowser', 'db', 'git', 'health', 'idp',
  'inbox', 'login', 'logout', 'mashlib', 'nostr', 'notifications', 'oauth', 'pods', 'profile', 'public',
  'register', 'relay', 'remotestorage', 'root', 'server', 'settings', 'solid', 'static', 'status', 'storage',
  'system', 'token', 'users', 'well-known', 'www',
]);

/** Throws a 400 problem unless the name is a valid, unreserved pod name. */
export function checkPodName(name: unknown): string {
  if (typeof name !== 'string' || name === '') {
    throw new HttpProblem(400, 'The body must be a JSON object with a "name" string.', { type: 'invalid-pod-name' });
  }
  if (!POD_NAME.test(name)) {
    throw new HttpProblem(400, 'A pod name is 1 to 63 characters of lower-case letters, digits, "-" and "_".', { type: 'invalid-pod-name' });
  }
  if (RESERVED_POD_NAMES.has(name)) {
    throw new HttpProblem(400, `"${name}" is reserved for the server; choose another pod name.`, { type: 'reserved-pod-name' });
  }
  return name;
}
