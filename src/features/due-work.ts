/**
 * Queued work a runtime runs for the app where it cannot keep a loop of its own (`Platform.scheduleDue`,
 * `App.runDue`): each feature's queue by the feature's name, and the WebSockets' idle sweep.
 */

/** The name `Platform.scheduleDue` is told for the WebSockets' idle sweep. */
export const SOCKET_SWEEP = 'socket-sweep';

/** Work that has more queued, and in how many ms it is due. */
export type DueAgain = readonly [work: string, inMs: number];

/** Runs the named due work (all when none is named); when each that has more queued is due again. */
export async function runDue(work: ReadonlyMap<string, () => Promise<number | null>>, names?: readonly string[]): Promise<DueAgain[]> {
  const asked = [...work].filter(([name]) => names === undefined || names.includes(name));
  const next = await Promise.all(asked.map(async ([name, run]) => [name, await run()] as const));
  return next.filter((entry): entry is DueAgain => entry[1] !== null);
}
