/**
 * Size strings such as `500KB`, `50MB`, `1.5GB`: a number and a unit, case-insensitive. Units are binary
 * (1 KB = 1024 B), as file managers and `du -h` count; see docs/decisions.md.
 */

const UNITS: Record<string, number> = {
  B: 1,
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};

const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?B)?\s*$/i;

/** Parses a size string into bytes; a bare number is bytes. Returns null when it is not a size. */
export function parseSize(value: string): number | null {
  const match = SIZE_PATTERN.exec(value);
  if (!match) return null;
  const unit = (match[2] ?? 'B').toUpperCase();
  return Math.round(Number(match[1]) * UNITS[unit]!);
}

/** Formats bytes with the largest unit that keeps the number at or above 1, e.g. `1.5 MB`. */
export function formatSize(bytes: number): string {
  const units = ['TB', 'GB', 'MB', 'KB'];
  for (const unit of units) {
    const factor = UNITS[unit]!;
    if (bytes >= factor) return `${Number((bytes / factor).toFixed(2))} ${unit}`;
  }
  return `${bytes} B`;
}
