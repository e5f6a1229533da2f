/**
 * Which content type a file's name implies in the fs driver's data directory, and the upgrade of a directory
 * written by earlier versions (docs/decisions.md, "One directory entry per resource").
 *
 * Layout 2 (now): a name without any dot holds JSON-LD, the native format (as javascript-solid-server has
 * it), and an ACL document (`.acl`, `<name>.acl`) Turtle; other names imply what their extension says
 * (`mediaTypeForName`). So a POSTed or PUT JSON-LD resource without an extension, a pod's settings and type
 * indexes and every ACL are one directory entry: no sidecar. Layout 1 (before): the extension alone, and
 * `application/octet-stream` for a name without one, so each of those had a sidecar.
 *
 * The layout is recorded in `<root>/.svc-meta` (a reserved name no resource or sidecar can have). A server
 * opening a directory without it upgrades it first, in two passes that each leave every file with its type
 * under both rules: (1) every file whose implied type changes and that has no sidecar gets one naming its
 * layout 1 type, and the record says layout 2 with a cleanup pending; (2) sidecars that now only repeat the
 * implied type go, and the record says layout 2. A crash in (1) repeats (1); in (2), (2).
 */
import { lstat, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JSON_LD, TURTLE } from '../src/rdf/media.ts';
import { mediaTypeForName } from '../src/storage/media-types.ts';
import { isReservedName, nameOf, RESERVED_SUFFIX } from '../src/storage/paths.ts';
import type { SidecarFiles } from './fs-sidecar-files.ts';

/** The record of the directory's layout: a name of the drivers' own that no resource's sidecar can have. */
export const LAYOUT_FILE = RESERVED_SUFFIX;
export const CURRENT_LAYOUT = 2;

interface LayoutRecord {
  layout: number;
  /** Pass (2) of the upgrade is still to run. */
  cleanup?: boolean;
}

/** The type a name implies in layout 2. */
export function impliedType(name: string): string {
  if (name === '.acl') return TURTLE;
  if (!name.includes('.')) return JSON_LD;
  return mediaTypeForName(name);
}

/** The type a name implied in layout 1. */
export const impliedTypeBefore = mediaTypeForName;

async function readRecord(root: string): Promise<LayoutRecord | null> {
  try {
    const record = JSON.parse(await readFile(join(root, LAYOUT_FILE), 'utf8')) as Partial<LayoutRecord>;
    if (typeof record.layout !== 'number') throw new Error(`${join(root, LAYOUT_FILE)} names no layout`);
    return { layout: record.layout, ...(record.cleanup && { cleanup: true }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function writeRecord(root: string, record: LayoutRecord, tempPath: () => string): Promise<void> {
  const temp = tempPath();
  await writeFile(temp, JSON.stringify(record));
  await rename(temp, join(root, LAYOUT_FILE));
}

/** Every file of the directory tree under `root` (storage paths), reserved names left out. */
async function* filesUnder(root: string, container = '/'): AsyncGenerator<string> {
  for (const entry of await readdir(join(root, container), { withFileTypes: true })) {
    if (isReservedName(entry.name)) continue;
    if (entry.isDirectory()) yield* filesUnder(root, `${container}${entry.name}/`);
    else if (entry.isFile()) yield container + entry.name;
  }
}

const exists = (file: string) => lstat(file).then(() => true, () => false);

/**
 * The layout the driver reads the directory with. Opened as its server (`upgrade`), an older directory is
 * upgraded first; opened beside a server (`svc quota`), an older one is read as it is, a new empty one is
 * marked. `shared` (other servers have it open too) refuses to upgrade: one of them alone must.
 */
export async function openLayout(root: string, options: { upgrade: boolean; shared: boolean; sidecars: SidecarFiles; tempPath: () => string; log?: (line: string) => void }): Promise<number> {
  let record = await readRecord(root);
  if (!record) {
    const empty = (await readdir(root)).every((name) => isReservedName(name));
    if (empty) {
      await writeRecord(root, { layout: CURRENT_LAYOUT }, options.tempPath);
      return CURRENT_LAYOUT;
    }
    if (!options.upgrade) return 1;
    if (options.shared) {
      throw new Error(`it was written by an earlier version of svc; start one svc on it alone (without --redis-url) once, which upgrades it (docs/decisions.md, "One directory entry per resource")`);
    }
    let typed = 0;
    for await (const path of filesUnder(root)) {
      const before = impliedTypeBefore(nameOf(path));
      if (impliedType(nameOf(path)) === before || (await exists(options.sidecars.pathOf(path)))) continue;
      await options.sidecars.apply(path, { action: 'write', record: { contentType: before } });
      typed++;
    }
    record = { layout: CURRENT_LAYOUT, cleanup: true };
    await writeRecord(root, record, options.tempPath);
    options.log?.(`svc: upgraded the data directory ${root} to layout ${CURRENT_LAYOUT}: ${typed} files whose names now imply another type keep theirs in a sidecar`);
  }
  if (record.cleanup && options.upgrade && !options.shared) {
    let removed = 0;
    for await (const path of filesUnder(root)) {
      const implied = impliedType(nameOf(path));
      if (implied === impliedTypeBefore(nameOf(path))) continue;
      const sidecar = await options.sidecars.read(path).catch(() => null);
      if (!sidecar || sidecar.previous || sidecar.contentType !== implied) continue;
      await options.sidecars.remove(path);
      await options.sidecars.release(sidecar);
      removed++;
    }
    await writeRecord(root, { layout: CURRENT_LAYOUT }, options.tempPath);
    if (removed > 0) options.log?.(`svc: ${removed} sidecars only repeated what their files' names now imply, and are gone`);
  }
  return record.layout;
}
