/** Web Access Control access modes. */
export type AccessMode = 'read' | 'write' | 'append' | 'control';

export const ALL_MODES: readonly AccessMode[] = ['read', 'write', 'append', 'control'];

/** One requirement: the agent needs at least one of `anyOf` on `path`. */
export interface AccessRequirement {
  path: string;
  anyOf: readonly AccessMode[];
}
