import type { StorageDriver } from '../storage/types.ts';

/** What a fresh server allows: the public may read the root container's listing, and nothing else. */
export const ROOT_ACL = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
@prefix foaf: <http://xmlns.com/foaf/0.1/>.

# Written by the server at first start. Without acl:default, nothing below the root inherits this.
<#public> a acl:Authorization;
  acl:accessTo <./>;
  acl:agentClass foaf:Agent;
  acl:mode acl:Read.
`;

/** Creates `/.acl` when missing (create-only, so concurrent starts agree) and says so in the log. */
export async function ensureRootAcl(storage: StorageDriver, log: (line: string) => void): Promise<void> {
  if (await storage.head('/.acl')) return;
  const created = await storage.put('/.acl', ROOT_ACL, { contentType: 'text/turtle', ifNoneMatch: '*' });
  if (created) log('created the root ACL /.acl: the public may read the root container, nothing else (WAC denies what no ACL allows).');
}
