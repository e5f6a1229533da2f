import { HttpProblem } from '../http/problem.ts';
import type { OutboundFetch } from '../platform.ts';

/** `acct:user@host`, `@user@host` or `user@host`. */
const HANDLE = /^(?:acct:|@)?([^@\s/:]+)@([a-z0-9.-]+(?::[0-9]+)?)$/i;

function invalid(detail: string): HttpProblem {
  return new HttpProblem(400, detail, { type: 'activitypub-invalid-actor' });
}

export function isHandle(text: string): boolean {
  return HANDLE.test(text);
}

/**
 * The actor URL of a fediverse handle, from the WebFinger descriptor at its host (RFC 7033, over https as
 * the RFC requires), fetched through the guarded fetch: the `self` link of type `application/activity+json`.
 */
export async function actorUrlOfHandle(fetch: OutboundFetch, handle: string): Promise<string> {
  const match = HANDLE.exec(handle);
  if (!match) throw invalid(`${handle} is not a handle such as @alice@example.org.`);
  const [, user, host] = match;
  const resource = `acct:${user}@${host}`;
  let descriptor: { links?: { rel?: string; type?: string; href?: string }[] };
  try {
    const response = await fetch(`https://${host}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`, { headers: { accept: 'application/jrd+json, application/json' } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    descriptor = (await response.json()) as typeof descriptor;
  } catch (error) {
    throw invalid(`WebFinger of ${resource} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const self = (descriptor.links ?? []).find(
    (link) => link.rel === 'self' && typeof link.href === 'string' && (link.type === 'application/activity+json' || (link.type ?? '').startsWith('application/ld+json')),
  );
  if (!self?.href) throw invalid(`The WebFinger descriptor of ${resource} names no ActivityPub actor.`);
  return self.href;
}
