/**
 * A listing body as a layout: a head (the container, and what leads into the members), each member's text in
 * two sections with a separator between members (Turtle: its IRI in `ldp:contains`, then its description),
 * and the text between and after. Made whole, the body keeps where each member's texts are; the body of the
 * next version of the container (one member written, say) is then the new head and the new members' texts
 * around the previous body's bytes for the members unchanged, copied in runs, byte for byte what a fresh
 * build gives.
 */
import type { ResourceMeta } from '../storage/types.ts';

export interface ListingLayout {
  /** Depends on the container and on whether it has members. */
  head: string;
  /** Each writes member `index`'s text in its section into `parts`, as the strings it has. */
  first(member: ResourceMeta, index: number, parts: string[]): void;
  firstSeparator: string;
  middle: string;
  second(member: ResourceMeta, index: number, parts: string[]): void;
  secondSeparator: string;
  tail: string;
}

/** A body with where each member's texts start (byte offsets; each section's last entry is where it ends). */
export interface LaidOutBody {
  members: readonly ResourceMeta[];
  bytes: Uint8Array<ArrayBuffer>;
  first: Uint32Array;
  second: Uint32Array;
}

/** Members written into one piece of a body: pieces of ~20-40 KB, garbage of the young generation. */
const MEMBERS_PER_PIECE = 128;

/**
 * The body's text in pieces; with `offsets`, where each member's texts start, counted in UTF-16 units (the
 * bytes' offsets too when the text is all ASCII). Each `write` adds its member's strings to `parts` (one join
 * per piece then makes the piece, with no string made per member in between).
 */
export function* layoutPieces(members: readonly ResourceMeta[], layout: ListingLayout, offsets?: { first: Uint32Array; second: Uint32Array }): Generator<string> {
  let at = layout.head.length;
  yield layout.head;
  function* section(write: ListingLayout['first'], separator: string, starts: Uint32Array | undefined): Generator<string> {
    for (let from = 0; from < members.length; from += MEMBERS_PER_PIECE) {
      const parts: string[] = [];
      for (let index = from; index < Math.min(from + MEMBERS_PER_PIECE, members.length); index++) {
        if (index > 0 && separator) {
          parts.push(separator);
          at += separator.length;
        }
        const before = parts.length;
        if (starts) starts[index] = at;
        write(members[index]!, index, parts);
        if (starts) for (let part = before; part < parts.length; part++) at += parts[part]!.length;
      }
      yield parts.join('');
    }
    if (starts) starts[members.length] = at;
  }
  yield* section(layout.first, layout.firstSeparator, offsets?.first);
  at += layout.middle.length;
  yield layout.middle;
  yield* section(layout.second, layout.secondSeparator, offsets?.second);
  yield layout.tail;
}

/** The body made whole from `pieces` (see encodePieces), with where its members' texts are when it is all ASCII. */
export function laidOutBody(members: readonly ResourceMeta[], layout: ListingLayout, encode: (pieces: Iterable<string>) => Uint8Array<ArrayBuffer>): LaidOutBody | Uint8Array<ArrayBuffer> {
  const offsets = { first: new Uint32Array(members.length + 1), second: new Uint32Array(members.length + 1) };
  let chars = 0;
  const counted = function* () {
    for (const piece of layoutPieces(members, layout, offsets)) {
      chars += piece.length;
      yield piece;
    }
  };
  const bytes = encode(counted());
  // Characters beyond ASCII take more bytes than UTF-16 units: the offsets counted would not be the bytes'.
  return bytes.byteLength === chars ? { members, bytes, ...offsets } : bytes;
}

/** Whether a member's text in a listing is the same: it says nothing but these. */
function sameText(a: ResourceMeta, b: ResourceMeta): boolean {
  return a === b || (a.path === b.path && a.modified === b.modified && a.size === b.size && a.isContainer === b.isContainer);
}

const encoder = new TextEncoder();

/** Bytes written at the end of a growing array. */
class Output {
  bytes: Uint8Array<ArrayBuffer>;
  length = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }
  #room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const larger = new Uint8Array(Math.max(this.bytes.length + (this.bytes.length >> 1), this.length + more));
    larger.set(this.bytes.subarray(0, this.length));
    this.bytes = larger;
  }
  text(text: string): void {
    this.#room(text.length * 3);
    this.length += encoder.encodeInto(text, this.bytes.subarray(this.length)).written;
  }
  copy(from: Uint8Array, start: number, end: number): void {
    this.#room(end - start);
    this.bytes.set(from.subarray(start, end), this.length);
    this.length += end - start;
  }
}

/**
 * The body of `members` made from `previous`'s bytes for each run of members whose text is unchanged (both
 * lists sorted by path, as listings are), with the new head and the other members' texts made anew; none
 * when most members changed (a body made whole is quicker then).
 */
export function splicedBody(previous: LaidOutBody, members: readonly ResourceMeta[], layout: ListingLayout): LaidOutBody | undefined {
  // For each new member, the previous one with the same text, or -1.
  const from = new Int32Array(members.length);
  let old = 0;
  let kept = 0;
  for (let index = 0; index < members.length; index++) {
    const member = members[index]!;
    while (old < previous.members.length && previous.members[old]!.path < member.path) old++;
    from[index] = old < previous.members.length && sameText(previous.members[old]!, member) ? old++ : -1;
    if (from[index]! >= 0) kept++;
  }
  if (kept * 2 < members.length) return undefined;
  const out = new Output(previous.bytes.length + layout.head.length * 3 + 1024);
  const first = new Uint32Array(members.length + 1);
  const second = new Uint32Array(members.length + 1);
  const section = (write: ListingLayout['first'], separator: string, starts: Uint32Array, previousStarts: Uint32Array) => {
    const endOf = (index: number) => (index + 1 < previous.members.length ? previousStarts[index + 1]! - separator.length : previousStarts[previous.members.length]!);
    const parts: string[] = [];
    for (let index = 0; index < members.length; ) {
      if (index > 0) out.text(separator);
      const start = from[index]!;
      if (start < 0) {
        starts[index] = out.length;
        parts.length = 0;
        write(members[index]!, index, parts);
        out.text(parts.join(''));
        index++;
        continue;
      }
      // A run: consecutive members here that were consecutive there, copied with the separators between them.
      let end = index + 1;
      while (end < members.length && from[end] === start + (end - index)) end++;
      const shift = out.length - previousStarts[start]!;
      for (let member = index; member < end; member++) starts[member] = previousStarts[from[member]!]! + shift;
      out.copy(previous.bytes, previousStarts[start]!, endOf(start + (end - index) - 1));
      index = end;
    }
    starts[members.length] = out.length;
  };
  out.text(layout.head);
  section(layout.first, layout.firstSeparator, first, previous.first);
  out.text(layout.middle);
  section(layout.second, layout.secondSeparator, second, previous.second);
  out.text(layout.tail);
  const bytes = out.bytes.length - out.length <= out.bytes.length >> 3 ? out.bytes.subarray(0, out.length) : out.bytes.slice(0, out.length);
  return { members, bytes, first, second };
}
