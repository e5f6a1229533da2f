/** The median of some measurements (the lower middle one of an even count), without changing the list. */
export const median = (numbers: readonly number[]): number => [...numbers].sort((a, b) => a - b)[Math.floor((numbers.length - 1) / 2)]!;
