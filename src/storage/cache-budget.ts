/**
 * How `--cache-size` is shared among the caches of a request's path. Each is a BoundedCache weighed in bytes
 * (an estimate of what an entry keeps alive: its strings, its objects, its bytes), so all of them together
 * stay within the option's size; docs/decisions.md ("Caches and their bounds") lists them.
 */
export interface CacheBudgets {
  /** The fs driver's small file bodies with their metadata. */
  fileBodies: number;
  /** The fs driver's content-type sidecars, absent ones included. */
  fileTypes: number;
  /** The fs driver's container listings (the members). */
  listings: number;
  /** Listing bodies made from them, encoded. */
  listingBodies: number;
  /** Representations converted to another RDF syntax. */
  conversions: number;
  /** Parsed ACL documents. */
  aclDocuments: number;
  /** Access decisions made from them (modes by path and caller). */
  wacDecisions: number;
}

const SHARES: Record<keyof CacheBudgets, number> = { fileBodies: 8, fileTypes: 1, listings: 4, listingBodies: 5, conversions: 3, aclDocuments: 2, wacDecisions: 1 };
const TOTAL_SHARES = Object.values(SHARES).reduce((sum, share) => sum + share, 0);

export function cacheBudgets(bytes: number): CacheBudgets {
  const budgets = {} as CacheBudgets;
  for (const [name, share] of Object.entries(SHARES) as [keyof CacheBudgets, number][]) budgets[name] = Math.floor((bytes * share) / TOTAL_SHARES);
  return budgets;
}

/** A character outside Latin-1: V8 then keeps the whole string in two bytes a character. */
const WIDE = /[^\x00-\xff]/;

/**
 * What a string keeps alive in V8's heap: a 16-byte header, one byte a character (two when one is outside
 * Latin-1), in steps of 8 bytes. The test reads the whole string, which makes one built in pieces (a tree of
 * cons strings) flat: a cached string is then one copy, not its pieces.
 */
export const stringBytes = (text: string) => 16 + Math.ceil(((WIDE.test(text) ? 2 : 1) * text.length) / 8) * 8;
