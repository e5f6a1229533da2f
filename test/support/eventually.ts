/** Asks `probe` again until it answers something other than undefined (work that runs in the background). */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 240; attempt++) {
    const answer = await probe();
    if (answer !== undefined) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`gave up waiting for ${what}`);
}
