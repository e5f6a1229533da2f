/** PATCH's parsers and RDF store load with the first PATCH, not at every start; a failed load is tried again by the next. */
import type { PatchHandler } from './handler.ts';

let patchCode: Promise<typeof import('./patch.ts')> | undefined;
const loadPatchCode = () =>
  (patchCode ??= import('./patch.ts').catch((error: unknown) => {
    patchCode = undefined;
    throw error;
  }));

export const handlePatchWhenLoaded: PatchHandler = async (ctx) => (await loadPatchCode()).handlePatch(ctx);
