/** Edits (insert, delete, replace, swap of neighbours) that turn one word into the other. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known name a mistyped one most likely meant (a few edits away, case aside), or null. */
export function closestName(word: string, known: Iterable<string>): string | null {
  const typed = word.toLowerCase();
  let best: string | null = null;
  // Short names allow one edit, longer ones up to three: beyond that a "suggestion" is a guess.
  let bestDistance = Math.max(1, Math.min(3, Math.floor(typed.length / 3))) + 1;
  for (const name of known) {
    const d = distance(typed, name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** ` (did you mean X?)`, or nothing when no known name is close. */
export function didYouMean(word: string, known: Iterable<string>): string {
  const match = closestName(word, known);
  return match === null ? '' : ` (did you mean ${match}?)`;
}
