import { mintToken } from '../auth/bearer.ts';
import type { Config } from '../config/options.ts';
import { ConfigError } from '../config/resolve.ts';
import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { initPodQuota, quotaPathOf } from '../quota/record.ts';
import { LOCAL_ORIGIN } from '../wac/local-iri.ts';
import { ROOT_ACL } from '../wac/root-acl.ts';
import { podCreationHandler, type PodCreationDeps, type PodCreationHooks } from './create.ts';
import { podFiles, profileJsonLd, type PodFile, type ProfileExtras } from './layout.ts';
import { checkPodName } from './names.ts';
import { publicUrlOf } from './subdomains.ts';
import { readPodRecord, type PodRecord } from './registry.ts';

/** The one pod of a `--single-user` server, as found or made at startup. */
export interface SingleUserPod {
  /** The pod's name; the empty string for the pod at the root. */
  name: string;
  /** URL path of the pod root: `/me/`, or `/`. */
  podPath: string;
  /** URL path and fragment of the owner's WebID: `/me/#me`, or `/profile/card#me`. */
  webIdPath: string;
  /** A bearer token for the owner when this start created the pod; null when the pod already existed. */
  token: string | null;
}

/** Completion mark of the pod at the root (named pods have theirs under /.server/pods/). */
export const ROOT_POD_RECORD = '/.server/root-pod.json';
export const ROOT_POD_WEBID_PATH = '/profile/card#me';

/** The answer to every registration path of a single-user server. */
export function registrationClosed(): HttpProblem {
  return new HttpProblem(403, 'This server runs in single-user mode (--single-user): it has its one pod and registers no others.', { type: 'registration-disabled' });
}

export interface SingleUserDeps extends Omit<PodCreationDeps, 'readOnly' | 'hooks'> {
  /** What features add to pod creation (profile properties, the quota record); admission does not apply. */
  hooks: Omit<PodCreationHooks, 'admit'>;
  /** The quota record the pod at `/` gets (`--default-quota`), and the containers outside it that it counts. */
  rootPodQuota: { limit: number; outside: readonly string[] };
}

/** The owner's WebID as a record keeps it: bearer tokens only carry its path to the origin of each request. */
function localWebId(webIdPath: string): string {
  return LOCAL_ORIGIN + webIdPath;
}

/** `/me/` through the same creation path as `POST /.pods` (skeleton, record, quota), without registration checks. */
async function ensureNamedPod(deps: SingleUserDeps, name: string): Promise<SingleUserPod> {
  const pod = { name, podPath: `/${name}/`, webIdPath: `/${name}/#me` };
  if (await readPodRecord(deps.storage, name)) return { ...pod, token: null };
  try {
    checkPodName(name);
  } catch (problem) {
    throw new ConfigError(`Invalid --single-user-name "${name}": ${(problem as Error).message}`);
  }
  // Its own log line names the WebID by path: the request below comes to no real origin.
  const create = podCreationHandler({ ...deps, readOnly: false, log: () => undefined, hooks: { profile: deps.hooks.profile, created: deps.hooks.created } });
  let answer: Response;
  try {
    answer = await create(new Request(LOCAL_ORIGIN + '/.pods', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) }));
  } catch (problem) {
    if (!(problem instanceof HttpProblem) || problem.status !== 409) throw problem;
    throw new ConfigError(
      `single-user mode cannot create its pod: /${name}/ already exists but is not a pod (no /.server/pods/${name}.json). Move it aside or choose another --single-user-name.`,
    );
  }
  const { token } = (await answer.json()) as { token: string };
  deps.log(`created the single-user pod /${name}/ (WebID ${pod.webIdPath})`);
  return { ...pod, token };
}

/**
 * The files of the pod at `/`: the usual skeleton without the profile page, whose owner references
 * (`./#me` from the root, `../#me` from its containers) move to the WebID document `/profile/card`.
 */
export function rootPodFiles(extras: ProfileExtras = {}): PodFile[] {
  const skeleton = podFiles('')
    .filter((file) => !file.path.startsWith('index.html'))
    .map((file) => ({ ...file, body: file.body.replace(/(\.\.?\/)#me/g, '$1profile/card#me') }));
  // The pod-root profile graph, one container further down: its links to the pod gain a `../`.
  const profile = JSON.stringify(profileJsonLd('me', extras)).replace(/"\.\//g, '"../');
  const profileAcl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
@prefix foaf: <http://xmlns.com/foaf/0.1/>.

<#owner> a acl:Authorization;
  acl:agent <./card#me>;
  acl:accessTo <./card>;
  acl:mode acl:Read, acl:Write, acl:Control.

<#public> a acl:Authorization;
  acl:agentClass foaf:Agent;
  acl:accessTo <./card>;
  acl:mode acl:Read.
`;
  return [
    ...skeleton,
    { path: 'profile/card', contentType: 'application/ld+json', body: profile },
    { path: 'profile/card.acl', contentType: 'text/turtle', body: profileAcl },
  ];
}

/**
 * The pod at `/` (empty name). Its root ACL replaces the default one the server wrote at first start;
 * a root ACL edited by hand, or any file of the skeleton already there, stops startup with nothing changed.
 */
async function ensureRootPod(deps: SingleUserDeps): Promise<SingleUserPod> {
  const pod = { name: '', podPath: '/', webIdPath: ROOT_POD_WEBID_PATH };
  const { storage } = deps;
  const { limit, outside } = deps.rootPodQuota;
  if (await storage.head(ROOT_POD_RECORD)) {
    // Made before the pod at / had a quota: it gets one now, like any pod.
    if (!(await storage.head(quotaPathOf('/')))) {
      const record = await initPodQuota(storage, '/', limit, outside);
      const over = record.limit > 0 && record.used > record.limit ? `; it is over the limit, so writes that grow it get 507 until \`svc quota set / <size>\` raises it` : '';
      deps.log(`quota: the pod at / had no quota record; it now has one: ${record.used} bytes used of ${record.limit === 0 ? 'unlimited' : `${record.limit} bytes`} (--default-quota)${over}.`);
    }
    return { ...pod, token: null };
  }
  const rootAcl = await storage.get('/.acl');
  const rootAclText = rootAcl ? await new Response(rootAcl.body).text() : null;
  if (rootAclText !== null && rootAclText !== ROOT_ACL) {
    throw new ConfigError('single-user mode cannot put its pod at / : the root ACL /.acl was changed by hand. Move it aside (the pod writes its own) or give --single-user-name a name.');
  }
  const written: string[] = [];
  let aclReplaced = false;
  try {
    for (const file of rootPodFiles(deps.hooks.profile?.(localWebId(ROOT_POD_WEBID_PATH)))) {
      const path = '/' + file.path;
      const replacing = path === '/.acl' && rootAcl ? rootAcl.meta.etag : null;
      const options = replacing ? { ifMatch: replacing } : { ifNoneMatch: '*' as const };
      const result = await storage.put(path, file.body, { contentType: file.contentType, ...options });
      if (!result) throw new ConfigError(`single-user mode cannot put its pod at / : ${path} already exists. Move it aside or give --single-user-name a name.`);
      if (replacing) aclReplaced = true;
      else written.push(...result.createdContainers, result.meta.path);
    }
    await initPodQuota(storage, '/', limit, outside);
    written.push(quotaPathOf('/'));
    const record: PodRecord = { name: '', webId: localWebId(ROOT_POD_WEBID_PATH), created: new Date(deps.now()).toISOString() };
    if (!(await storage.put(ROOT_POD_RECORD, JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' }))) {
      throw new ConfigError(`${ROOT_POD_RECORD} appeared while the pod at / was being created; start again.`);
    }
  } catch (error) {
    for (const path of written.reverse()) await storage.delete(path).catch(() => null);
    if (aclReplaced) await storage.put('/.acl', ROOT_ACL, { contentType: 'text/turtle' }).catch(() => null);
    throw error;
  }
  deps.log(`created the single-user pod at / (WebID ${ROOT_POD_WEBID_PATH})`);
  const token = await mintToken(await deps.tokenKey(), localWebId(ROOT_POD_WEBID_PATH), deps.tokenTtlSeconds, deps.now());
  return { ...pod, token };
}

/** The root pod's record, for `svc token /`; null before single-user mode created it. */
export async function readRootPodRecord(storage: StorageDriver): Promise<PodRecord | null> {
  const stored = await storage.get(ROOT_POD_RECORD);
  return stored ? (JSON.parse(await new Response(stored.body).text()) as PodRecord) : null;
}

/**
 * What a runtime prints at startup: where the pod is, and the owner's token on the start that created it.
 * `newToken` says how to get another one (`svc token ...`), null where there is no such way.
 */
export function singleUserNotice(pod: SingleUserPod, serverUrl: string, newToken: string | null, config: Parameters<typeof publicUrlOf>[0] & Pick<Config, 'baseUrl'>): string {
  const urlOf = (localIri: string) => publicUrlOf(config, localIri, new URL(serverUrl));
  const carried = config.baseUrl ? '' : ' (WebIDs carry the origin each request comes to; --base-url sets one public origin)';
  const where = `single-user pod: ${urlOf(pod.podPath)}\nWebID: ${urlOf(pod.webIdPath)}${carried}`;
  const another = newToken ? `; a new one: ${newToken}` : '';
  if (pod.token) return `${where}\nowner token (send it as "Authorization: Bearer <token>"${another}):\n${pod.token}`;
  return `${where}\nits owner token was printed at first start${another}`;
}

/** Held while one instance finds or makes the pod, so that instances sharing the storage make it once. */
export const SINGLE_USER_CLAIM = '/.server/single-user-pod.claim';
/** A claim this old was left by an instance that stopped while making the pod: it is taken over. */
const CLAIM_STALE_MS = 30_000;
const CLAIM_POLL_MS = 50;

/**
 * Waits until the instance holding the claim is done (it deletes the claim), or takes over a stale claim.
 * Bounded by CLAIM_STALE_MS of waiting even on a clock that does not move.
 */
async function claimReleased(storage: StorageDriver, now: () => number): Promise<void> {
  for (let poll = 0; poll * CLAIM_POLL_MS < CLAIM_STALE_MS; poll++) {
    const claim = await storage.get(SINGLE_USER_CLAIM);
    if (!claim) return;
    const { started } = JSON.parse(await new Response(claim.body).text()) as { started: number };
    if (now() - started >= CLAIM_STALE_MS) break;
    await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
  }
  const stale = await storage.head(SINGLE_USER_CLAIM);
  if (stale) await storage.delete(SINGLE_USER_CLAIM, { ifMatch: stale.etag });
}

function podMade(storage: StorageDriver, name: string): Promise<unknown> {
  return name === '' ? storage.head(ROOT_POD_RECORD) : readPodRecord(storage, name);
}

/**
 * Finds the single-user pod, or creates it on the first start; `name` '' puts it at the root. Instances that
 * start together on one storage (isolates of a Worker, processes behind a balancer) make it once: the one
 * that claims it makes it, the others wait and find it (with no token: the maker's start prints it).
 */
export async function ensureSingleUserPod(deps: SingleUserDeps, name: string): Promise<SingleUserPod> {
  const make = () => (name === '' ? ensureRootPod(deps) : ensureNamedPod(deps, name));
  const { storage } = deps;
  // A claim lost to a stale one's takeover by another waiter: at most one more round each.
  for (let round = 0; round < 3; round++) {
    if (await podMade(storage, name)) return make();
    const claimed = await storage.put(SINGLE_USER_CLAIM, JSON.stringify({ started: deps.now() }), { contentType: 'application/json', ifNoneMatch: '*' });
    if (claimed) {
      try {
        return await make();
      } finally {
        await storage.delete(SINGLE_USER_CLAIM, { ifMatch: claimed.meta.etag });
      }
    }
    await claimReleased(storage, deps.now);
  }
  throw new Error('single-user mode could not claim the making of its pod: other instances kept the claim. Start again.');
}
