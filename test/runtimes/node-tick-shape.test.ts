import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, 'fixtures', 'tick-shape-child.ts');

/** The states V8 prints for nextTick's four tick-object property stores, after a full GC with no tick alive. */
function tickLiteralStates(mode: 'hold' | 'none'): string[] {
  // V8 prints through C's stdio, which loses output on a non-blocking pipe: the child writes to a file.
  const directory = mkdtempSync(join(tmpdir(), 'svc-tick-shape-'));
  const file = join(directory, 'out');
  const fd = openSync(file, 'w');
  try {
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', CHILD, mode], { stdio: ['ignore', fd, 'inherit'] });
    expect(child.status).toBe(0);
    return [...readFileSync(file, 'utf8').matchAll(/DefineKeyedOwnPropertyInLiteral ([A-Z]+)/g)].map((match) => match[1]!);
  } finally {
    closeSync(fd);
    rmSync(directory, { recursive: true, force: true });
  }
}

describe("nextTick's tick object (runtimes/node/tick-shape.ts)", () => {
  it("keeps nextTick's property stores monomorphic through a full GC once a tick object is held", () => {
    expect(tickLiteralStates('hold')).toEqual(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });

  // If this fails, V8 no longer loses the feedback (a Node upgrade fixed it) and tick-shape.ts may go.
  it('without the held tick object the same GC leaves three of them megamorphic: the V8 behaviour held off', () => {
    expect(tickLiteralStates('none')).toEqual(['MONOMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC']);
  });
});
