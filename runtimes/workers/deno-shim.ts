/**
 * Stands in for `@deno/shim-deno` in the Workers bundle (the `[alias]` in wrangler.toml). fedify 1.5's npm
 * build reaches the `Deno` namespace through that shim, which requires `fs`, `child_process` and
 * `__dirname` when it loads and so stops a Worker from starting. fedify touches three members, none on a
 * path svc takes (its own document loaders and delivery are not used, see docs/decisions.md): these answer
 * as a runtime without permissions, version or timers to unref.
 */
export const Deno = {
  /** Read by fedify's URL check before a DNS lookup: "not granted" skips the lookup, which svc's guarded fetch makes instead. */
  permissions: { query: async (_descriptor: { name: string }) => ({ state: 'denied' as const }) },
  /** Read by fedify's default User-Agent, which svc's outbound fetch replaces. */
  version: { deno: 'workers' },
  /** fedify's delay helper unrefs its timers; there is nothing to unref here. */
  unrefTimer(_id: unknown): void {},
};
