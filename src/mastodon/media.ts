/**
 * Uploads for statuses (`POST /api/v2/media`, `/api/v1/media`): the image is stored in the pod at
 * `/public/media/<id>.<ext>` (public, so other servers can fetch it; counted in the pod's quota, announced to
 * notification subscribers like any write), its record (type, alt text, the status it went into) under
 * /.server/mastodon/media/. Only images whose bytes are what their type says are taken.
 */
import { readRecord, writeRecord } from '../activitypub/records.ts';
import type { NoteAttachment } from '../activitypub/social-records.ts';
import { formatSize } from '../config/sizes.ts';
import { limitedBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import type { Change } from '../ldp/context.ts';
import { essenceOf } from '../storage/media-types.ts';
import type { StorageDriver } from '../storage/types.ts';
import { validation } from './account-state.ts';
import { MEDIA_RECORDS } from './descriptor.ts';
import { attachmentEntity, MEDIA_PATH } from './status-entity.ts';

/** Mastodon's own limit for images. */
export const MAX_IMAGE_BYTES = 16 * 1024 * 1024;
const MAX_DESCRIPTION = 1500;
/** Room for the form's other fields around the file. */
const FORM_OVERHEAD = 64 * 1024;

/** The image types taken, each told by its first bytes. */
const IMAGE_TYPES: readonly { type: string; extension: string; matches(bytes: Uint8Array): boolean }[] = [
  { type: 'image/png', extension: 'png', matches: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { type: 'image/jpeg', extension: 'jpg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', extension: 'gif', matches: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  { type: 'image/webp', extension: 'webp', matches: (b) => String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP' },
];

export const MEDIA_TYPES = IMAGE_TYPES.map((image) => image.type);

export interface MediaRecord {
  id: string;
  /** Storage path of the file. */
  path: string;
  mediaType: string;
  description: string | null;
  created: string;
  /** The status it was attached to; null until then (it can be attached once). */
  status: string | null;
}

export interface PreparedMedia {
  record: MediaRecord;
  attachment: NoteAttachment;
}

function timedId(now: number): string {
  const random = [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${String(now).padStart(15, '0')}-${random}`;
}

const isId = (id: string) => /^[0-9]{15}-[0-9a-f]{12}$/.test(id);

function descriptionOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw validation('description must be a string');
  if ([...value].length > MAX_DESCRIPTION) throw validation(`Description is too long (at most ${MAX_DESCRIPTION} characters)`);
  return value;
}

export class MediaStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #publish: (changes: readonly Change[]) => void;
  readonly limit: number;

  constructor(storage: StorageDriver, now: () => number, publish: (changes: readonly Change[]) => void, maxBodySize: number) {
    this.#storage = storage;
    this.#now = now;
    this.#publish = publish;
    this.limit = Math.min(MAX_IMAGE_BYTES, maxBodySize);
  }

  /** Stores the `file` of a multipart upload with its `description`. */
  async upload(request: Request): Promise<MediaRecord> {
    const type = request.headers.get('content-type') ?? '';
    if (essenceOf(type) !== 'multipart/form-data') throw new HttpProblem(415, 'Send the file as multipart/form-data, in the field "file".', { type: 'unsupported-media-type' });
    let form: FormData;
    try {
      form = await new Response(limitedBody(request, this.limit + FORM_OVERHEAD), { headers: { 'content-type': type } }).formData();
    } catch (error) {
      if (error instanceof HttpProblem) throw error;
      throw new HttpProblem(400, 'The multipart/form-data body cannot be read.', { type: 'invalid-form' });
    }
    const file = form.get('file');
    if (file === null || typeof file === 'string') throw validation('File is missing (send it in the field "file")');
    if (file.size > this.limit) throw new HttpProblem(413, `The file is larger than the limit of ${formatSize(this.limit)}.`, { type: 'body-too-large', extra: { error: `File size must be less than ${formatSize(this.limit)}` } });
    const bytes = new Uint8Array(await file.arrayBuffer());
    const image = IMAGE_TYPES.find((candidate) => candidate.matches(bytes));
    if (!image) throw validation(`File content type is invalid: this server takes ${MEDIA_TYPES.join(', ')} (told by the file's own bytes)`);
    const description = descriptionOf(form.get('description'));
    const id = timedId(this.#now());
    const path = `${MEDIA_PATH}${id}.${image.extension}`;
    const stored = await this.#storage.put(path, bytes, { contentType: image.type, ifNoneMatch: '*' });
    if (!stored) throw new HttpProblem(409, 'An upload of the same name exists already; try again.', { type: 'conflict' });
    this.#publish([...stored.createdContainers.map((container) => ({ path: container, kind: 'create' as const })), { path, kind: 'create' }]);
    const record: MediaRecord = { id, path, mediaType: image.type, description, created: new Date(this.#now()).toISOString(), status: null };
    await writeRecord(this.#storage, `${MEDIA_RECORDS}${id}.json`, record, true);
    return record;
  }

  async get(id: string): Promise<MediaRecord | null> {
    if (!isId(id)) return null;
    return (await readRecord<MediaRecord>(this.#storage, `${MEDIA_RECORDS}${id}.json`))?.value ?? null;
  }

  /** Changes the alt text of an upload not yet attached (as Mastodon allows); null for no such upload. */
  async describe(id: string, value: unknown): Promise<MediaRecord | null> {
    if (!isId(id)) return null;
    const held = await readRecord<MediaRecord>(this.#storage, `${MEDIA_RECORDS}${id}.json`);
    if (!held) return null;
    if (held.value.status !== null) throw validation('This file is attached to a status already');
    const record = { ...held.value, description: descriptionOf(value) };
    if (!(await this.#storage.put(`${MEDIA_RECORDS}${id}.json`, JSON.stringify(record), { contentType: 'application/json', ifMatch: held.etag }))) throw new HttpProblem(409, 'The upload changed meanwhile; try again.', { type: 'conflict' });
    return record;
  }

  /** The uploads named by a new status, checked: each exists and is attached to nothing yet. */
  async forStatus(ids: readonly string[], origin: string): Promise<PreparedMedia[]> {
    const prepared: PreparedMedia[] = [];
    for (const id of new Set(ids)) {
      const record = await this.get(id);
      if (!record) throw validation(`No upload with the id ${id.slice(0, 40)}`);
      if (record.status !== null) throw validation(`The upload ${id} is attached to another status`);
      prepared.push({ record, attachment: { url: origin + record.path, mediaType: record.mediaType, description: record.description } });
    }
    return prepared;
  }

  /** Marks uploads as attached to a status. */
  async attach(media: readonly PreparedMedia[], status: string): Promise<void> {
    for (const { record } of media) await writeRecord(this.#storage, `${MEDIA_RECORDS}${record.id}.json`, { ...record, status });
  }

  /** https://docs.joinmastodon.org/entities/MediaAttachment/ */
  entity(record: MediaRecord, origin: string): Record<string, unknown> {
    return attachmentEntity({ url: origin + record.path, mediaType: record.mediaType, description: record.description, width: null, height: null }, record.id, false);
  }
}
