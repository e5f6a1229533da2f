import type { Config } from '../config/options.ts';
import { HttpProblem } from '../http/problem.ts';
import { POD_NAME } from '../pods/names.ts';
import { readPodRecord } from '../pods/registry.ts';
import { podHostsOf, publicUrlOf } from '../pods/subdomains.ts';
import { readRootPodRecord, ROOT_POD_WEBID_PATH } from '../pods/single-user.ts';
import type { StorageDriver } from '../storage/types.ts';

/** A user this server can describe: a named pod, or the pod at the root of a single-user server. */
export interface WebfingerAccount {
  /** The `<user>` of `acct:<user>@<host>`. */
  user: string;
  /** URL path of the pod root: `/alice/`, or `/`. */
  podPath: string;
  /** Absolute WebID on the origin the request came to. */
  webId: string;
  /** Origin the request came to; links are absolute on it. */
  origin: string;
}

/** One link of a JSON Resource Descriptor (RFC 7033 §4.4.4). */
export interface JrdLink {
  rel: string;
  type?: string;
  href?: string;
  template?: string;
  titles?: Record<string, string>;
  properties?: Record<string, string | null>;
}

/** What a feature adds to an account's descriptor (the ActivityPub actor, the remoteStorage root). */
export type WebfingerLinks = (account: WebfingerAccount) => readonly JrdLink[] | Promise<readonly JrdLink[]>;

const PROFILE_PAGE = 'http://webfinger.net/rel/profile-page';

/**
 * The user name of the pod at the root of a single-user server (`--single-user-name ""`), which has no
 * name of its own: the ActivityPub username, so `acct:me@host` finds it by default.
 */
function rootPodUser(config: Config): string | null {
  return config.singleUser && config.singleUserName === '' ? config.apUsername : null;
}

/** The account `<user>` names on this server (as `acct:<user>@<host>` does), or null. */
export async function findAccount(storage: StorageDriver, config: Config, user: string, origin: string): Promise<WebfingerAccount | null> {
  if (user === rootPodUser(config)) {
    return (await readRootPodRecord(storage)) ? { user, podPath: '/', webId: origin + ROOT_POD_WEBID_PATH, origin } : null;
  }
  if (!POD_NAME.test(user)) return null;
  const webId = publicUrlOf(config, `/${user}/#me`, new URL(origin));
  return (await readPodRecord(storage, user)) ? { user, podPath: `/${user}/`, webId, origin } : null;
}

function malformed(detail: string): HttpProblem {
  return new HttpProblem(400, detail, { type: 'invalid-webfinger-resource' });
}

/** The user a `resource` names on this host: `acct:<user>@<host>`, or the URL of a pod's WebID or root. */
function userOf(resource: string, url: URL, config: Config): string | null {
  if (resource.startsWith('acct:')) {
    const at = resource.lastIndexOf('@');
    if (at <= 'acct:'.length || at === resource.length - 1) throw malformed(`The resource ${resource} is not of the form acct:<user>@<host>.`);
    const user = decodeURIComponent(resource.slice('acct:'.length, at));
    return resource.slice(at + 1).toLowerCase() === url.host.toLowerCase() ? user : null;
  }
  let iri: URL;
  try {
    iri = new URL(resource);
  } catch {
    throw malformed(`The resource ${resource} is neither an acct: URI nor an absolute URL.`);
  }
  // In subdomain mode a pod's WebID and root are on the pod's host.
  const local = podHostsOf(config) ? podHostsOf(config)!.localize(iri, url.origin) : iri.origin === url.origin ? iri.pathname + iri.hash : null;
  if (local === null) return null;
  const path = local.replace(/#.*$/, '');
  if (local === ROOT_POD_WEBID_PATH || path === '/') return rootPodUser(config);
  return /^\/([^/]+)\/$/.exec(path)?.[1] ?? null;
}

/**
 * `GET /.well-known/webfinger` (RFC 7033): the descriptor of a pod's user, with the WebID and profile
 * page and whatever links the enabled features add. 400 without a well-formed `resource`, 404 for anyone
 * this server does not hold.
 */
export function webfingerHandler(deps: { storage: StorageDriver; config: Config; links: readonly WebfingerLinks[] }) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const resources = url.searchParams.getAll('resource');
    if (resources.length !== 1 || resources[0] === '') throw malformed('Give exactly one resource parameter, such as ?resource=acct:alice@' + url.host + '.');
    const user = userOf(resources[0]!, url, deps.config);
    const account = user === null ? null : await findAccount(deps.storage, deps.config, user, url.origin);
    if (!account) throw new HttpProblem(404, `This server holds no account for ${resources[0]}.`, { type: 'unknown-account' });
    const profileDocument = account.webId.slice(0, account.webId.indexOf('#'));
    const added = (await Promise.all(deps.links.map((links) => links(account)))).flat();
    const rels = url.searchParams.getAll('rel');
    const links = [{ rel: PROFILE_PAGE, type: 'text/html', href: profileDocument }, ...added].filter((link) => rels.length === 0 || rels.includes(link.rel));
    const descriptor = { subject: `acct:${account.user}@${url.host}`, aliases: [account.webId, profileDocument], links };
    return new Response(JSON.stringify(descriptor), {
      headers: { 'content-type': 'application/jrd+json', 'cache-control': 'max-age=60' },
    });
  };
}
