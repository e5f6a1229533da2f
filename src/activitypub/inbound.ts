/**
 * What an activity that came to an inbox changes, once fedify checked that its actor signed it (see
 * docs/activitypub.md, "Who may change what"). An object belongs to the actor that made it: a Create is kept
 * only for an object of the actor's own (its author, on its origin), and Delete, Update and Undo are taken
 * only from that actor; where the server holds no copy to tell by, a Delete is kept (as a tombstone) only
 * from an actor on the object's own origin. Remote HTML is made safe before anything is stored.
 *
 * Records in the pod's inbox container are named by the SHA-256 of what they are about: a Create by its
 * object's id (so Delete and Update find it), anything else by its own id.
 */
import type { Change } from '../ldp/context.ts';
import type { StorageDriver } from '../storage/types.ts';
import { FOLLOWERS_CONTAINER, hashName, INBOX_CONTAINER } from './paths.ts';
import { readRecord } from './records.ts';
import { withSafeHtml } from './safe-html.ts';

type Json = Record<string, unknown>;

export interface InboundDeps {
  storage: StorageDriver;
  publish(changes: readonly Change[]): void;
  log(line: string): void;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const idOf = (value: unknown): string | null => (typeof value === 'string' ? value : isObject(value) && typeof value.id === 'string' ? value.id : null);

function originOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** True when every attribution the object names is `actor` (an object that names none is the actor's too). */
function attributedOnlyTo(object: Json, actor: string): boolean {
  const attributions = [object.attributedTo ?? []].flat();
  return attributions.every((attribution) => idOf(attribution) === actor);
}

/** When an object was last changed, for telling an Update older than what is held. */
function changedAt(object: Json): number {
  const time = Date.parse(String(object.updated ?? object.published ?? ''));
  return Number.isNaN(time) ? -Infinity : time;
}

export async function inboxRecordPath(id: string): Promise<string> {
  return `${INBOX_CONTAINER}${await hashName(id)}.json`;
}

export class Inbound {
  readonly #deps: InboundDeps;

  constructor(deps: InboundDeps) {
    this.#deps = deps;
  }

  #refuse(activity: Json, actor: string, reason: string): void {
    this.#deps.log(`activitypub: refused ${String(activity.type)} ${String(activity.id)} from ${actor}: ${reason}`);
  }

  /** The activity's own id is on its actor's origin (another server's ids are not this actor's to use). */
  #ownId(activity: Json, actor: string): boolean {
    if (originOf(idOf(activity)) === originOf(actor)) return true;
    this.#refuse(activity, actor, 'its id is not on its actor\'s origin');
    return false;
  }

  /** Stores a record once; announced to notification subscribers like any write. */
  async #keep(path: string, record: Json): Promise<void> {
    const stored = await this.#deps.storage.put(path, JSON.stringify(record), { contentType: 'application/ld+json', ifNoneMatch: '*' });
    if (stored) this.#deps.publish([{ path, kind: 'create' }]);
  }

  /** A Create of the actor's own object, kept once per object with its HTML made safe. */
  async create(activity: Json, actor: string): Promise<void> {
    if (!this.#ownId(activity, actor)) return;
    const object = activity.object;
    const objectId = idOf(object);
    if (!isObject(object) || objectId === null) {
      await this.#keep(await inboxRecordPath(String(activity.id)), withSafeHtml(activity));
      return;
    }
    if (originOf(objectId) !== originOf(actor) || !attributedOnlyTo(object, actor)) {
      this.#refuse(activity, actor, `${objectId} is not an object of its own`);
      return;
    }
    await this.#keep(await inboxRecordPath(objectId), { ...withSafeHtml(activity), object: withSafeHtml(object) });
  }

  /** Like, Announce: kept once per activity. */
  async keep(activity: Json, actor: string): Promise<void> {
    if (!this.#ownId(activity, actor)) return;
    await this.#keep(await inboxRecordPath(String(activity.id)), withSafeHtml(activity));
  }

  /** Delete by the object's author removes what is held of it; the Delete itself is kept as a tombstone. */
  async delete(activity: Json, actor: string): Promise<void> {
    if (!this.#ownId(activity, actor)) return;
    const objectId = idOf(activity.object);
    if (objectId === null) return;
    const path = await inboxRecordPath(objectId);
    const held = await readRecord<Json>(this.#deps.storage, path);
    if (held) {
      if (idOf(held.value.actor) !== actor) {
        this.#refuse(activity, actor, `${objectId} is not its own`);
        return;
      }
      if (await this.#deps.storage.delete(path, { ifMatch: held.etag })) this.#deps.publish([{ path, kind: 'delete' }]);
    } else if (originOf(objectId) !== originOf(actor)) {
      this.#refuse(activity, actor, `${objectId} is held here by nobody and is on another origin`);
      return;
    }
    await this.#keep(await inboxRecordPath(String(activity.id)), withSafeHtml(activity));
  }

  /** Update by the author of a held object replaces it (a later version only), its HTML made safe. */
  async update(activity: Json, actor: string): Promise<void> {
    if (!this.#ownId(activity, actor)) return;
    const object = activity.object;
    const objectId = idOf(object);
    // An actor's update of its own profile needs nothing here: accounts are read again after a day.
    if (!isObject(object) || objectId === null || objectId === actor) return;
    const path = await inboxRecordPath(objectId);
    const held = await readRecord<Json>(this.#deps.storage, path);
    if (!held || !isObject(held.value.object)) return;
    if (idOf(held.value.actor) !== actor || !attributedOnlyTo(object, actor)) {
      this.#refuse(activity, actor, `${objectId} is not its own`);
      return;
    }
    if (changedAt(object) <= changedAt(held.value.object)) return;
    // An edit changes the content, not when the post was published (clients know the post by that time).
    const published = object.published ?? held.value.object.published;
    const updated = { ...held.value, object: withSafeHtml({ ...object, id: objectId, ...(published !== undefined && { published }) }) };
    if (await this.#deps.storage.put(path, JSON.stringify(updated), { contentType: 'application/ld+json', ifMatch: held.etag })) {
      this.#deps.publish([{ path, kind: 'update' }]);
    }
  }

  /**
   * Undo by the actor that made what it undoes: its Follow of the owner (the follower record names the
   * Follow; an embedded Follow by the same actor will do), or a Like or Announce held here.
   */
  async undo(activity: Json, actor: string, ownerActor: string): Promise<void> {
    const object = activity.object;
    const objectId = idOf(object);
    if (objectId === null) return;
    const followerPath = `${FOLLOWERS_CONTAINER}${await hashName(actor)}.json`;
    const follower = await readRecord<{ followId: string }>(this.#deps.storage, followerPath);
    const ownFollow = isObject(object) && object.type === 'Follow' && idOf(object.actor) === actor && idOf(object.object) === ownerActor;
    if (follower && (follower.value.followId === objectId || ownFollow)) {
      await this.#deps.storage.delete(followerPath);
      return;
    }
    const path = await inboxRecordPath(objectId);
    const held = await readRecord<Json>(this.#deps.storage, path);
    if (!held || (held.value.type !== 'Like' && held.value.type !== 'Announce')) return;
    if (idOf(held.value.actor) !== actor) {
      this.#refuse(activity, actor, `${objectId} is not its own`);
      return;
    }
    if (await this.#deps.storage.delete(path, { ifMatch: held.etag })) this.#deps.publish([{ path, kind: 'delete' }]);
  }
}
