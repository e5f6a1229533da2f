/** Storage path arithmetic and the safety rules every request path must pass. */
import { ACL_SUFFIX, RESERVED_PREFIX, RESERVED_SUFFIX, reservedNameProblem, type SegmentPlace } from './reserved-names.ts';

export { RESERVED_PREFIX, RESERVED_SUFFIX, type SegmentPlace };

export const MAX_PATH_BYTES = 2048;
/**
 * The longest segment, in UTF-8 bytes, so every file a driver keeps for a name fits the 255 bytes file
 * systems allow: `<name>.acl` and that ACL's content-type sidecar `<name>.acl.svc-meta` (253 bytes). An ACL
 * document's segment is its subject's name plus `.acl`, so that suffix does not count.
 */
export const MAX_SEGMENT_BYTES = 240;

/**
 * A name (a container's with or without its slash) the drivers keep for their own files, spelled exactly
 * as the drivers write them: what a driver leaves out of its listings. Requests never reach such files
 * under any spelling (see `checkSegment`); matching exactly here keeps files of other spellings, written
 * by earlier versions, from being hidden or removed with their container.
 */
export function isReservedName(name: string): boolean {
  const bare = name.endsWith('/') ? name.slice(0, -1) : name;
  return bare.endsWith(RESERVED_SUFFIX) || bare.startsWith(RESERVED_PREFIX);
}

export class PathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

export function isContainerPath(path: string): boolean {
  return path.endsWith('/');
}

/** The container holding a path; the root's parent is null. */
export function parentOf(path: string): string | null {
  if (path === '/') return null;
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(0, trimmed.lastIndexOf('/') + 1);
}

/** Last segment, with a trailing `/` for containers. */
export function nameOf(path: string): string {
  if (path === '/') return '';
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return path.slice(trimmed.lastIndexOf('/') + 1);
}

/** Ancestor containers from the root down, excluding the path itself. */
export function ancestorsOf(path: string): string[] {
  const result: string[] = [];
  for (let p = parentOf(path); p !== null; p = parentOf(p)) result.push(p);
  return result.reverse();
}

export function checkSegment(segment: string, place: SegmentPlace): void {
  if (segment === '') throw new PathError('empty path segment');
  if (segment === '.' || segment === '..') throw new PathError('dot segments are not allowed');
  if (segment.includes('/')) throw new PathError('encoded slashes are not allowed');
  if (segment.includes('\\')) throw new PathError('backslashes are not allowed');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(segment)) throw new PathError('control characters are not allowed');
  const name = segment.endsWith(ACL_SUFFIX) ? segment.slice(0, -ACL_SUFFIX.length) : segment;
  if (overSegmentLimit(name)) throw new PathError(`a path segment is longer than ${MAX_SEGMENT_BYTES} bytes (not counting a final .acl)`);
  const reserved = reservedNameProblem(segment, place);
  if (reserved !== null) throw new PathError(reserved);
}

/**
 * Turns a URL pathname (still percent-encoded) into a decoded storage path, refusing anything that could
 * escape the data directory or alias another path.
 */
export function storagePathFromUrlPath(urlPath: string): string {
  const known = decodedPaths.get(urlPath);
  if (known !== undefined) return known;
  const path = decodePath(urlPath);
  if (urlPath.length <= MAX_REMEMBERED_PATH) {
    if (decodedPaths.size >= MAX_REMEMBERED_PATHS) decodedPaths.clear();
    decodedPaths.set(urlPath, path);
  }
  return path;
}

/** Paths decoded and checked already (every request decodes its own): a bounded count of short strings. */
const decodedPaths = new Map<string, string>();
const MAX_REMEMBERED_PATHS = 1000;
const MAX_REMEMBERED_PATH = 512;

function decodePath(urlPath: string): string {
  if (!urlPath.startsWith('/')) throw new PathError('the path must start with /');
  if (urlPath.length > MAX_PATH_BYTES) throw new PathError(`the path is longer than ${MAX_PATH_BYTES} bytes`);
  if (urlPath === '/') return '/';
  const container = urlPath.endsWith('/');
  const raw = urlPath.slice(1, container ? -1 : undefined).split('/');
  const decoded = raw.map((segment, index) => {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      throw new PathError('the path has invalid percent-encoding');
    }
    checkSegment(value, container || index < raw.length - 1 ? 'container' : 'resource');
    return value;
  });
  return '/' + decoded.join('/') + (container ? '/' : '');
}

const NEEDS_NO_ENCODING = /^[A-Za-z0-9\-._~/!$&'()*+,;=:@]*$/;

/** Encodes a storage path for use in a URL. */
export function urlPathFromStoragePath(path: string): string {
  // Most paths are plain ASCII names: skip the split and re-encode for them (container listings call this per member).
  return NEEDS_NO_ENCODING.test(path) ? path : path.split('/').map(encodeSegment).join('/');
}

const PATH_SAFE = /%(?:40|3A|24|2C|3B|3D|2B|26)/gi;

/** Percent-encodes a segment but keeps the sub-delimiters RFC 3986 allows in a path readable. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(PATH_SAFE, (escape) => decodeURIComponent(escape));
}

const encoder = new TextEncoder();
/** Whether a name has more UTF-8 bytes than a segment may; a short one (3 bytes at most per UTF-16 unit) is not encoded. */
function overSegmentLimit(name: string): boolean {
  return name.length * 3 > MAX_SEGMENT_BYTES && encoder.encode(name).length > MAX_SEGMENT_BYTES;
}
