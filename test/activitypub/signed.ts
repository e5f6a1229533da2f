/** Activities from a fedify peer's actor to an app in this process, signed as fedify signs them (draft-cavage, Digest). */
import { signRequest } from '@fedify/fedify';
import { BASE, type TestApp } from '../support/app.ts';
import type { PeerActor } from './fedify-peer.ts';

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** POSTs `activity` (the ActivityStreams context added) to `path`, signed with `signer`'s key. */
export async function deliverSigned(app: Pick<TestApp, 'app'>, signer: PeerActor, activity: Record<string, unknown>, path = '/inbox'): Promise<Response> {
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', ...activity });
  const signed = await signRequest(new Request(BASE + path, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }), signer.keys.privateKey, new URL(signer.keyId));
  return app.app.fetch(new Request(signed.url, { method: 'POST', headers: signed.headers, body }));
}

/** A Create of a public Note `name` by `author`. */
export function noteCreate(author: PeerActor, name: string, content: string, note: Record<string, unknown> = {}): Record<string, unknown> {
  const id = `${author.actorId}/statuses/${name}`;
  return {
    id: `${id}/activity`,
    type: 'Create',
    actor: author.actorId,
    to: PUBLIC,
    object: { id, type: 'Note', attributedTo: author.actorId, content, to: PUBLIC, published: '2026-01-01T00:00:00Z', ...note },
  };
}
