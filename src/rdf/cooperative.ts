import type { Parser, PrefixCallback, Quad } from 'n3';
import { tooManyTriples, type RdfLimits } from './limits.ts';

/**
 * Hands the event loop back between slices of long work on one request, so other clients are not kept waiting.
 * `setTimeout` exists on every runtime svc runs on (Node, Deno, Bun, Workers). An object, so tests can count pauses.
 */
export const cooperation = {
  pause: (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0)),
};

/** Characters of RDF text parsed between pauses: a few milliseconds of work; a smaller body is parsed in one go. */
export const TEXT_SLICE_CHARS = 16 * 1024;

/**
 * Parses Turtle, N-Triples or N3 with n3, fed in slices of TEXT_SLICE_CHARS with a pause between them (n3's
 * streaming mode keeps tokens that straddle two slices). Syntax errors are thrown as n3 reports them; past
 * `limits.maxTriples` parsing stops with a 413 problem.
 */
export async function parseN3InSlices(parser: Parser, text: string, prefixCallback?: PrefixCallback, limits?: RdfLimits): Promise<Quad[]> {
  const maxTriples = limits?.maxTriples ?? Infinity;
  if (text.length <= TEXT_SLICE_CHARS) {
    const quads = parser.parse(text, null, prefixCallback);
    if (quads.length > maxTriples) throw tooManyTriples(limits!);
    return quads;
  }
  const listeners: Record<string, (chunk?: string) => void> = {};
  const source = {
    on(event: string, listener: (chunk?: string) => void) {
      listeners[event] = listener;
      return source;
    },
  };
  const quads: Quad[] = [];
  let failure: Error | undefined;
  // n3 calls back with an error, or a quad, or neither at the end.
  const onQuad = (error: Error | null, quad: Quad | null) => {
    if (error) failure ??= error;
    else if (quad && quads.push(quad) > maxTriples) failure ??= tooManyTriples(limits!);
  };
  // @types/n3 asks for a Node EventEmitter; n3 uses only `on` of its input.
  const parseStream = parser.parse as unknown as (input: typeof source, callback: typeof onQuad, prefixCallback?: PrefixCallback) => void;
  parseStream.call(parser, source, onQuad, prefixCallback);
  for (let offset = 0; offset < text.length && !failure; offset += TEXT_SLICE_CHARS) {
    if (offset > 0) await cooperation.pause();
    listeners.data!(text.slice(offset, offset + TEXT_SLICE_CHARS));
  }
  if (!failure) listeners.end!();
  if (failure) throw failure;
  return quads;
}

/** Counts units of work (quads written, say) and pauses after every `perSlice` of them. */
export class Pacer {
  private sinceLastPause = 0;
  private readonly perSlice: number;

  constructor(perSlice: number) {
    this.perSlice = perSlice;
  }

  async done(units: number): Promise<void> {
    if (this.due(units)) await cooperation.pause();
  }

  /** Counts units; true when a pause is due. Tight loops write `if (pacer.due(1)) await cooperation.pause()`, awaiting only then. */
  due(units: number): boolean {
    this.sinceLastPause += units;
    if (this.sinceLastPause < this.perSlice) return false;
    this.sinceLastPause = 0;
    return true;
  }
}

/**
 * Work shared by many callers (every connection of the Nostr relay): once a turn of the event loop has seen
 * `perTurn` units of work, callers wait for a pause. Waiters go on in the order they came.
 */
export class SharedPacer {
  private spent = 0;
  private next: Promise<void> | null = null;
  private readonly perTurn: number;

  constructor(perTurn: number) {
    this.perTurn = perTurn;
  }

  /** Counts work done after the fact (when its size was known only then). */
  spend(units: number): void {
    this.spent += units;
  }

  /**
   * Counts `units` about to be done: undefined when this turn has room (go on at once, no await needed), else a
   * promise of a later turn, with the units already counted there. Checking and counting are one step, so many
   * waiters woken together do not all take the same room.
   */
  take(units: number): Promise<void> | undefined {
    if (this.spent < this.perTurn) {
      this.spent += units;
      return undefined;
    }
    return this.waitToTake(units);
  }

  private async waitToTake(units: number): Promise<void> {
    while (this.spent >= this.perTurn) {
      this.next ??= cooperation.pause().then(() => {
        this.spent = 0;
        this.next = null;
      });
      await this.next;
    }
    this.spent += units;
  }
}
