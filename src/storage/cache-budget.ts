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

/** Roughly what a string keeps alive in the heap. */
export const stringBytes = (text: string) => 16 + text.length;
