/**
 * The names the server gives a meaning, and how a name is matched against them (see "Reserved names" in
 * docs/decisions.md). All of it lives in `reservedNameRules`, which refers to nothing outside itself: svc's
 * git hook runs this very function's source on the names of a pushed tree (runtimes/node/git-pre-receive.ts).
 */

/** A container's name (every segment but the last of a resource path) or a resource's. */
export type SegmentPlace = 'container' | 'resource';

export function reservedNameRules() {
  const ACL_SUFFIX = '.acl';
  const QUOTA_FILE = '.quota.json';
  /** The server's own state, at the storage root: `/.server/`. */
  const SERVER_DIRECTORY = '.server';
  const GIT_DIRECTORY = '.git';
  /** Segment suffixes and prefixes the drivers use for their own files; never valid resource names. */
  const RESERVED_SUFFIX = '.svc-meta';
  const RESERVED_PREFIX = '.svc-tmp';

  /** Lowercase ASCII without `:` and without a final dot or space folds to itself: most names skip all work. */
  const FOLDS_TO_ITSELF = /^[^\0-\x1f:A-Z\x7f-\uffff]*[^\0-\x1f:A-Z. \x7f-\uffff]$/;
  const ASCII = /^[\0-\x7f]*$/;
  const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
  const WINDOWS_TAIL = /[. ]+$/;

  /**
   * The name folded at least as far as any case-insensitive or normalising file system folds it: NFKC
   * (covers the NFD of APFS and HFS+, and width and compatibility forms), default-ignorable code points
   * dropped (HFS+ ignores zero-width joiners and direction marks), case mapped down, up and down again
   * (NTFS upper-cases, so `ı` and `ſ` meet `i` and `s`; `ß` and `ẞ` meet `ss` as in Unicode case folding),
   * and what Windows drops: the stream after a `:`, final dots and spaces.
   */
  function foldName(name: string): string {
    if (FOLDS_TO_ITSELF.test(name)) return name;
    let folded = ASCII.test(name) ? name.toLowerCase() : name.normalize('NFKC').replace(IGNORABLE, '').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
    const colon = folded.indexOf(':');
    if (colon !== -1) folded = folded.slice(0, colon);
    return folded.replace(WINDOWS_TAIL, '');
  }

  const FOLDING_DISKS = 'a file system that ignores case or normalises names (macOS, Windows)';

  /**
   * Why a name may not be used, or null. A name that folds (`foldName`) into a reserved one must be spelled
   * exactly as the server spells it, or a file system that folds names would store it as the reserved file:
   * `doc.ACL` would be `doc.acl`, written with Write instead of Control. Containers never take an ACL
   * document's or a quota record's name (`x.acl/` would stop the ACL of `x` from being created).
   */
  function reservedNameProblem(segment: string, place: SegmentPlace): string | null {
    const folded = foldName(segment);
    // Every reserved name has a dot.
    if (!folded.includes('.')) return null;
    if (folded.endsWith(RESERVED_SUFFIX) || folded.startsWith(RESERVED_PREFIX)) {
      return `names ending in ${RESERVED_SUFFIX} or starting with ${RESERVED_PREFIX}, in any spelling, are the storage drivers' own files`;
    }
    if (folded.endsWith(ACL_SUFFIX)) {
      if (place === 'container') return `a container cannot take an ACL document's name (ending in ${ACL_SUFFIX}, in any spelling)`;
      if (!segment.endsWith(ACL_SUFFIX)) return `${JSON.stringify(segment)} would be an ACL document on ${FOLDING_DISKS}; ACL documents end in ${ACL_SUFFIX} exactly`;
      const subject = segment.slice(0, -ACL_SUFFIX.length);
      return subject === '' ? null : reservedNameProblem(subject, 'resource');
    }
    if (folded === QUOTA_FILE || folded === SERVER_DIRECTORY || folded === GIT_DIRECTORY) {
      if (segment !== folded) return `${JSON.stringify(segment)} would be the server's own ${folded} on ${FOLDING_DISKS}`;
      if (folded === QUOTA_FILE && place === 'container') return `a container cannot take the quota record's name ${QUOTA_FILE}`;
    }
    return null;
  }

  return { ACL_SUFFIX, QUOTA_FILE, RESERVED_SUFFIX, RESERVED_PREFIX, foldName, reservedNameProblem };
}

export const { ACL_SUFFIX, QUOTA_FILE, RESERVED_SUFFIX, RESERVED_PREFIX, foldName, reservedNameProblem } = reservedNameRules();
