import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import type { Caller } from '../wac/access-control.ts';
import type { Social } from './social.ts';

/** Largest activity the owner may post (a Note's text, HTML included). */
const MAX_ACTIVITY_BYTES = 64 * 1024;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of a JSON-LD node given as a string or as `{ id }`. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return null;
}

function unsupported(detail: string): HttpProblem {
  return new HttpProblem(400, detail, { type: 'activitypub-unsupported-activity' });
}

function created(location: string, body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 201, headers: { location, 'content-type': 'application/activity+json' } });
}

/**
 * `POST /profile/card/outbox` (ActivityPub client-to-server) by the owner: a bare Note or a Create of one
 * is posted, a Follow follows its object, an Undo of a Follow unfollows. 401 without credentials, 403 for
 * anyone but the owner.
 */
export async function postToOutbox(request: Request, caller: Caller, ownerWebId: string, social: Social): Promise<Response> {
  if (caller.webId === null) throw new HttpProblem(401, 'Posting to the outbox needs the owner\'s credentials.', { type: 'unauthenticated' });
  if (caller.webId !== ownerWebId) throw new HttpProblem(403, 'Only the owner may post to this outbox.', { type: 'forbidden' });
  const activity = await readJsonBody(request, MAX_ACTIVITY_BYTES, 'The activity');
  if (!isObject(activity)) throw unsupported('The activity must be a JSON object.');
  const note = activity.type === 'Create' ? activity.object : activity;
  if (isObject(note) && note.type === 'Note') {
    if (typeof note.content !== 'string' || note.content === '') throw unsupported('A Note needs a non-empty string content.');
    const inReplyTo = idOf(note.inReplyTo);
    const create = await social.postNote({ content: note.content, ...(inReplyTo && { inReplyTo }) });
    return created(String(create.id), create);
  }
  if (activity.type === 'Follow') {
    const target = idOf(activity.object);
    if (!target) throw unsupported('A Follow needs the actor to follow as its object.');
    const record = await social.follow(target);
    return created(record.followId, record);
  }
  if (activity.type === 'Undo' && isObject(activity.object) && activity.object.type === 'Follow') {
    const target = idOf(activity.object.object);
    if (!target) throw unsupported('An Undo of a Follow needs the followed actor as the Follow\'s object.');
    if (!(await social.unfollow(target))) throw new HttpProblem(404, `The owner does not follow ${target}.`, { type: 'activitypub-not-following' });
    return new Response(null, { status: 204 });
  }
  throw unsupported('The outbox takes a Note (or a Create of one), a Follow, or an Undo of a Follow.');
}
