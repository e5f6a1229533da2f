import { mintToken } from '../auth/bearer.ts';
import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { essenceOf } from '../storage/media-types.ts';
import { urlPathFromStoragePath } from '../storage/paths.ts';
import type { StorageDriver } from '../storage/types.ts';
import { podFiles, type ProfileExtras } from './layout.ts';
import { checkPodName } from './names.ts';
import { podRecordPath, podRootOf, rememberPodRoot, type PodRecord } from './registry.ts';

export interface PodCreationDeps {
  storage: StorageDriver;
  tokenKey(): Promise<Uint8Array>;
  tokenTtlSeconds: number;
  readOnly: boolean;
  /** The URL clients use for a local IRI (`/alice/#me`) seen from a request: the pod's host in subdomain mode. */
  urlOf(localIri: string, seenFrom: URL): string;
  now(): number;
  log(line: string): void;
  /** Steps other features add around the creation (invite redemption, the quota record). */
  hooks?: PodCreationHooks;
}

export interface PodCreationHooks {
  /** Wraps the creation: may refuse it (throw) and sees whether it failed. Gets the request's JSON fields. */
  admit?<T>(fields: Record<string, unknown>, create: () => Promise<T>): Promise<T>;
  /** Properties for `<#me>` in the new WebID profile; gets the WebID. */
  profile?(webId: string): ProfileExtras;
  /** Runs after the pod is written, before the answer. */
  created?(podRoot: string): Promise<void>;
  /** The JSON answer to `POST /.pods` in place of the default (name, webId, podUri and a bearer token). */
  answer?(pod: CreatedPod, request: Request): Promise<Record<string, unknown>>;
}

/** A pod just made, as its creator is told about it. */
export interface CreatedPod {
  name: string;
  webId: string;
  podUri: string;
}

/**
 * Several features' hooks as one: admissions nest in list order, profile properties merge, `created` runs
 * in order, and the last feature that shapes the answer does so.
 */
export function combinePodCreationHooks(list: readonly PodCreationHooks[]): PodCreationHooks {
  const admits = list.flatMap((hooks) => (hooks.admit ? [hooks.admit.bind(hooks)] : []));
  const answer = list.findLast((hooks) => hooks.answer)?.answer;
  return {
    answer,
    admit: admits.length === 0 ? undefined : <T>(fields: Record<string, unknown>, create: () => Promise<T>) => admits.reduceRight<() => Promise<T>>((inner, admit) => () => admit(fields, inner), create)(),
    profile: (webId) => Object.assign({}, ...list.map((hooks) => hooks.profile?.(webId) ?? {})),
    created: async (podRoot) => {
      for (const hooks of list) await hooks.created?.(podRoot);
    },
  };
}

const MAX_REQUEST_BYTES = 16 * 1024;

async function readName(request: Request): Promise<{ name: string; fields: Record<string, unknown> }> {
  const type = request.headers.get('content-type');
  if (!type || essenceOf(type) !== 'application/json') {
    throw new HttpProblem(415, 'Send the pod request as JSON: Content-Type: application/json with {"name": "..."}.', { type: 'unsupported-media-type' });
  }
  const body = await readJsonBody(request, MAX_REQUEST_BYTES, 'The body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpProblem(400, 'The body must be a JSON object with a "name" string.', { type: 'invalid-pod-name' });
  }
  return { name: checkPodName((body as { name?: unknown }).name), fields: body as Record<string, unknown> };
}

/**
 * Writes a pod all-or-nothing. Creating the root container is the lock (create-only: one winner); the
 * record under /.server/pods/ is written last and marks the pod complete. On failure, everything this
 * call wrote is deleted again, innermost first.
 */
async function writePod(storage: StorageDriver, name: string, record: PodRecord, extras: ProfileExtras): Promise<void> {
  const root = podRootOf(name);
  if (!(await storage.createContainer(root))) {
    throw new HttpProblem(409, `The pod name "${name}" is taken. If the pod is yours, a fresh token for it comes from \`svc token ${name}\` on the server (with its --root).`, { type: 'pod-exists' });
  }
  const written: string[] = [root];
  try {
    for (const file of podFiles(name, extras)) {
      const result = await storage.put(root + file.path, file.body, { contentType: file.contentType, ifNoneMatch: '*' });
      if (!result) throw new Error(`${root}${file.path} appeared while the pod was being created`);
      written.push(...result.createdContainers, result.meta.path);
    }
    const stored = await storage.put(podRecordPath(name), JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    if (!stored) throw new Error(`the pod record of "${name}" already exists`);
  } catch (error) {
    for (const path of written.reverse()) await storage.delete(path).catch(() => null);
    throw error;
  }
}

/** `POST /.pods` with `{"name": "..."}`: creates the pod and answers with its WebID and a bearer token (or what a feature answers instead). */
export function podCreationHandler(deps: PodCreationDeps): (request: Request) => Promise<Response> {
  return async (request) => {
    if (deps.readOnly) {
      throw new HttpProblem(405, 'This server is read-only (--read-only): no pods can be created.', { type: 'read-only', headers: { Allow: 'GET, HEAD, OPTIONS' } });
    }
    const { name, fields } = await readName(request);
    const podUri = deps.urlOf(urlPathFromStoragePath(podRootOf(name)), new URL(request.url));
    const webId = podUri + '#me';
    const create = async () => {
      await writePod(deps.storage, name, { name, webId, created: new Date(deps.now()).toISOString() }, deps.hooks?.profile?.(webId) ?? {});
      await deps.hooks?.created?.(podRootOf(name));
    };
    await (deps.hooks?.admit ? deps.hooks.admit(fields, create) : create());
    rememberPodRoot(deps.storage, podRootOf(name));
    deps.log(`created pod ${name} (${webId})`);
    const answer = deps.hooks?.answer
      ? await deps.hooks.answer({ name, webId, podUri }, request)
      : { name, webId, podUri, token: await mintToken(await deps.tokenKey(), webId, deps.tokenTtlSeconds, deps.now()) };
    return new Response(JSON.stringify(answer), {
      status: 201,
      headers: { 'Content-Type': 'application/json', Location: podUri, 'Cache-Control': 'no-store' },
    });
  };
}
