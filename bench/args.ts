/** A positive whole number given as `--<name>`, or exit: NaN would make a benchmark's loops run zero times or never finish. */
export function positiveCount(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive whole number, not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}
