import type { SharedState } from './shared-state.ts';

/** Runs `task` holding the shared lock `key` (see SharedState.lock), and releases it however the task ends. */
export async function withSharedLock<T>(state: SharedState, key: string, ttlMs: number, task: () => Promise<T>): Promise<T> {
  const release = await state.lock(key, ttlMs);
  try {
    return await task();
  } finally {
    await release();
  }
}
