import type * as Jose from 'jose';

let library: Promise<typeof Jose> | null = null;

/** jose, loaded with the first token seen: a server that only serves public data never needs it. */
export const jose = () => (library ??= import('jose'));
