import type { Platform } from '../../src/platform.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp, type TestApp } from '../support/app.ts';

export const ACL_PREFIXES = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
@prefix foaf: <http://xmlns.com/foaf/0.1/>.
`;

export interface PodWorld extends TestApp {
  tokens: Record<string, string>;
  /** Request as a pod owner (by pod name) or anonymously (null). */
  as(who: string | null, path: string, init?: RequestInit): Promise<Response>;
}

/** A WAC-enforcing app (not --public) with one pod per name, and a way to call it as each owner. */
export async function podWorld(names: readonly string[], flags: Record<string, unknown> = {}, platform: Partial<Platform> = {}, storage: StorageDriver = new MemoryDriver()): Promise<PodWorld> {
  const test = makeApp({ public: false, ...flags }, storage, platform);
  const tokens: Record<string, string> = {};
  for (const name of names) {
    const response = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    if (response.status !== 201) throw new Error(`pod ${name}: ${response.status} ${await response.text()}`);
    tokens[name] = ((await response.json()) as { token: string }).token;
  }
  const as = (who: string | null, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (who) headers.set('authorization', `Bearer ${tokens[who]}`);
    return test.request(path, { ...init, headers });
  };
  return { ...test, tokens, as };
}

export function putText(body = 'text'): RequestInit {
  return { method: 'PUT', headers: { 'content-type': 'text/plain' }, body };
}

export function putTurtleAcl(body: string): RequestInit {
  return { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: ACL_PREFIXES + body };
}

/** The owner's full authorization for a container ACL at any depth below the pod root. */
export function ownerRule(webId: string): string {
  return `<#owner> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.\n`;
}

export interface AclRule {
  id: string;
  agent?: string;
  /** `foaf:Agent` (everyone) when true. */
  public?: boolean;
  accessTo: string;
  default?: string;
  modes: readonly ('Read' | 'Write' | 'Append' | 'Control')[];
}

/** An ACL as JSON-LD, which any resource takes without --conneg: a write of it under another name is stored, not refused as Turtle (415). */
export function putJsonLdAcl(rules: readonly AclRule[]): RequestInit {
  const acl = 'http://www.w3.org/ns/auth/acl#';
  const body = rules.map((rule) => ({
    '@id': `#${rule.id}`,
    '@type': `${acl}Authorization`,
    ...(rule.agent && { [`${acl}agent`]: { '@id': rule.agent } }),
    ...(rule.public && { [`${acl}agentClass`]: { '@id': 'http://xmlns.com/foaf/0.1/Agent' } }),
    [`${acl}accessTo`]: { '@id': rule.accessTo },
    ...(rule.default && { [`${acl}default`]: { '@id': rule.default } }),
    [`${acl}mode`]: rule.modes.map((mode) => ({ '@id': acl + mode })),
  }));
  return { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(body) };
}
