/**
 * The owner's way to a token without a terminal on the server (`--single-user-secret`): `POST
 * /.pods/owner-token` with `Authorization: Bearer <secret>` answers a fresh owner token, as `svc token`
 * does on a machine with a shell. Meant for Workers, where the secret is set with `wrangler secret put
 * SVC_SINGLE_USER_SECRET` and nothing printed at startup can be read; it works the same on every runtime.
 */
import { mintToken } from '../auth/bearer.ts';
import type { Config } from '../config/options.ts';
import { ConfigError } from '../config/resolve.ts';
import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { readPodRecord, type PodRecord } from './registry.ts';
import { readRootPodRecord, type SingleUserPod } from './single-user.ts';

export const OWNER_TOKEN_PATH = '/.pods/owner-token';
/** A secret shorter than this could be guessed within the login rate limit's reach. */
export const MIN_SECRET_LENGTH = 32;
/** Fewer different characters than this is a pattern (`xxxx…`, `abcabc…`), not a random secret; `openssl rand -hex 32` has 16. */
export const MIN_SECRET_DISTINCT_CHARACTERS = 10;

/** The record of a pod by the name `svc token` takes (`/` for the pod at the root); null when there is none. */
export async function podRecordByName(storage: StorageDriver, podName: string): Promise<PodRecord | null> {
  if (podName === '/') return readRootPodRecord(storage);
  return /^[a-z0-9_-]{1,63}$/.test(podName) ? readPodRecord(storage, podName) : null;
}

/**
 * A bearer token for the pod's owner, signed with the server's key, for the WebID the record names; with
 * `ownerSecret` (traded at `POST /.pods/owner-token`), it ends when that secret is changed.
 */
export async function mintOwnerToken(record: PodRecord, tokenKey: Uint8Array, ttlSeconds: number, nowMs: number, ownerSecret?: string): Promise<string> {
  return mintToken(tokenKey, record.webId, ttlSeconds, nowMs, ownerSecret);
}

/** The secret, checked once when the app is built; null when the option is not set. */
export function ownerSecretOf(config: Pick<Config, 'singleUser' | 'singleUserSecret'>): string | null {
  const secret = config.singleUserSecret;
  if (secret === undefined) return null;
  if (!config.singleUser) throw new ConfigError('--single-user-secret (SVC_SINGLE_USER_SECRET) gives the owner of a --single-user pod a token: add --single-user, or remove the secret.');
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`--single-user-secret (SVC_SINGLE_USER_SECRET) must be at least ${MIN_SECRET_LENGTH} characters (it is ${secret.length}); make one with \`openssl rand -base64 32\`.`);
  }
  const distinct = new Set(secret).size;
  if (distinct < MIN_SECRET_DISTINCT_CHARACTERS) {
    throw new ConfigError(
      `--single-user-secret (SVC_SINGLE_USER_SECRET) has only ${distinct} different characters, a pattern easy to guess; it needs at least ${MIN_SECRET_DISTINCT_CHARACTERS}. Make a random one with \`openssl rand -base64 32\`.`,
    );
  }
  return secret;
}

/** Compares without an early exit, so the time taken does not tell how much of a guess was right. */
function sameSecret(given: string, secret: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(secret);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index++) difference |= (a[index] ?? 0) ^ b[index]!;
  return difference === 0;
}

export interface OwnerTokenDeps {
  secret: string;
  storage: StorageDriver;
  tokenKey(): Promise<Uint8Array>;
  tokenTtlSeconds: number;
  now(): number;
  /** The pod (made by the app's startup when missing). */
  pod(): Promise<SingleUserPod>;
  /** The public URL of a path as seen from a request. */
  urlOf(path: string, seenFrom: URL): string;
}

/** `POST /.pods/owner-token`: the owner's token for the secret, or 401 (the same answer for a missing and a wrong secret). */
export function ownerTokenHandler(deps: OwnerTokenDeps): (request: Request) => Promise<Response> {
  return async (request) => {
    const header = request.headers.get('authorization') ?? '';
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (given === undefined || !sameSecret(given, deps.secret)) {
      throw new HttpProblem(401, 'Send the server\'s --single-user-secret as "Authorization: Bearer <secret>" to get the owner\'s token.', {
        type: 'owner-secret-required',
        headers: { 'WWW-Authenticate': 'Bearer realm="owner-token"' },
      });
    }
    const pod = await deps.pod();
    const record = await podRecordByName(deps.storage, pod.name || '/');
    if (!record) throw new HttpProblem(503, 'The single-user pod is still being created; try again in a moment.', { type: 'pod-not-ready', headers: { 'Retry-After': '1' } });
    const url = new URL(request.url);
    const body = {
      token: await mintOwnerToken(record, await deps.tokenKey(), deps.tokenTtlSeconds, deps.now(), deps.secret),
      webId: deps.urlOf(pod.webIdPath, url),
      podUri: deps.urlOf(pod.podPath, url),
    };
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
  };
}
