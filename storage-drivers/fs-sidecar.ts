/**
 * The content-type sidecar `<name>.svc-meta` of the fs driver: the type of the file beside it, kept only when
 * the name cannot tell it.
 *
 * Body and sidecar are two files, and no rename replaces both at once. So a write that changes what the
 * sidecar says writes it before the body is renamed into place, and the new sidecar also names the body it
 * is about to replace (`previous`, by ETag) with that body's type. Whichever body a crash leaves at the path,
 * the sidecar gives its type: the old body matches `previous`, the new one does not.
 */

export interface SidecarRecord {
  /** The type of any body at the path except the one `previous` names. */
  contentType: string;
  previous?: { etag: string; contentType: string };
}

export function parseSidecar(text: string, where: string): SidecarRecord {
  const value = JSON.parse(text) as Partial<SidecarRecord> | null;
  if (typeof value?.contentType !== 'string') throw new Error(`${where} names no content type`);
  const previous = value.previous;
  if (previous === undefined) return { contentType: value.contentType };
  if (typeof previous?.etag !== 'string' || typeof previous.contentType !== 'string') throw new Error(`${where} has a malformed previous entry`);
  return { contentType: value.contentType, previous: { etag: previous.etag, contentType: previous.contentType } };
}

/** The type of the body with `etag`; `sidecar` is null when there is none. */
export function typeOfBody(sidecar: SidecarRecord | null, impliedType: string, etag: string): string {
  if (!sidecar) return impliedType;
  return sidecar.previous?.etag === etag ? sidecar.previous.contentType : sidecar.contentType;
}

/** What a write must do to the sidecar before its body lands: nothing, remove it, or write a record. */
export type SidecarStep = { action: 'keep' } | { action: 'remove' } | { action: 'write'; record: SidecarRecord };

/**
 * The step that makes the sidecar give a new body `contentType` while it still gives the body it replaces
 * its own type. `current` is that body with the sidecar as it is now; null when the path is free, where a
 * sidecar left behind (a crash during a delete) is simply replaced or removed. Rewriting a body with the
 * type it had touches no sidecar.
 */
export function sidecarStepFor(impliedType: string, contentType: string, current: { etag: string; sidecar: SidecarRecord | null } | null): SidecarStep {
  if (!current) return contentType === impliedType ? { action: 'remove' } : { action: 'write', record: { contentType } };
  const { etag, sidecar } = current;
  if ((sidecar?.contentType ?? impliedType) === contentType) return { action: 'keep' };
  return { action: 'write', record: { contentType, previous: { etag, contentType: typeOfBody(sidecar, impliedType, etag) } } };
}
