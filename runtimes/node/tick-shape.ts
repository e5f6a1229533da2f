/**
 * Keeps Node's `process.nextTick` on V8's fast path for the life of the process (docs/benchmarks.md, "Round
 * six: nextTick"). Node's streams call it several times a request.
 *
 * nextTick queues each callback in an object literal, `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …,
 * callback, args }`. V8 stores each property after a computed key through a feedback slot that remembers the
 * one hidden class (map) the object had before that store, and holds that map weakly. When a full garbage
 * collection finds no tick object alive (a quiet moment, e.g. just after svc starts listening), the maps of the
 * three later stores die; the next tick makes new ones, and V8 (Runtime_DefineKeyedOwnPropertyInLiteral takes
 * the cleared map for another map) marks those three slots megamorphic for good: every tick then defines
 * three properties through V8's runtime, ~34,000 instructions a GET. One tick object held here keeps its maps
 * alive, so every later tick object gets the same ones. The tick object is what async_hooks gives as the
 * resource of the callback it runs (the module is part of Node's bootstrap: importing it loads nothing).
 */
import { executionAsyncResource } from 'node:async_hooks';

/** Lives as long as this module does, i.e. the process. */
const held: object[] = [];

/** Holds a tick object of Node's own from the next tick on; call it before the process serves anything. */
export function holdTickShape(): void {
  process.nextTick(() => {
    held.push(executionAsyncResource());
  });
}
