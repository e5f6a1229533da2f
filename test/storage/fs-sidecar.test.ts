import { describe, expect, it } from 'vitest';
import { sidecarStepFor, typeOfBody, type SidecarRecord, type SidecarStep } from '../../storage-drivers/fs-sidecar.ts';

const IMPLIED = 'application/octet-stream';
const TYPES = [IMPLIED, 'text/turtle', 'application/ld+json'];

function after(sidecar: SidecarRecord | null, step: SidecarStep): SidecarRecord | null {
  return step.action === 'keep' ? sidecar : step.action === 'remove' ? null : step.record;
}

describe('fs content-type sidecar', () => {
  it('gives the old body its type and the new body its type at every point of a chain of writes', () => {
    // Every sequence of three types: the sidecar each write leaves behind, before its body is renamed in.
    for (const first of TYPES) {
      for (const second of TYPES) {
        for (const third of TYPES) {
          let sidecar = after(null, sidecarStepFor(IMPLIED, first, null));
          expect(typeOfBody(sidecar, IMPLIED, 'e1')).toBe(first);
          const chain: [string, string][] = [
            ['e1', first],
            ['e2', second],
            ['e3', third],
          ];
          for (let i = 1; i < chain.length; i++) {
            const [oldEtag, oldType] = chain[i - 1]!;
            const [newEtag, newType] = chain[i]!;
            sidecar = after(sidecar, sidecarStepFor(IMPLIED, newType, { etag: oldEtag, sidecar }));
            // A crash here leaves the old body or the new one; the sidecar names each one's own type.
            expect(typeOfBody(sidecar, IMPLIED, oldEtag), `${first} ${second} ${third} old`).toBe(oldType);
            expect(typeOfBody(sidecar, IMPLIED, newEtag), `${first} ${second} ${third} new`).toBe(newType);
          }
        }
      }
    }
  });

  it('touches no sidecar when a write keeps the type, or when the name implies it', () => {
    expect(sidecarStepFor(IMPLIED, IMPLIED, { etag: 'e1', sidecar: null })).toEqual({ action: 'keep' });
    expect(sidecarStepFor(IMPLIED, 'text/turtle', { etag: 'e1', sidecar: { contentType: 'text/turtle' } })).toEqual({ action: 'keep' });
    expect(sidecarStepFor(IMPLIED, 'text/turtle', { etag: 'e2', sidecar: { contentType: 'text/turtle', previous: { etag: 'e1', contentType: IMPLIED } } })).toEqual({ action: 'keep' });
  });

  it('replaces or removes a sidecar a crashed delete left on a free path', () => {
    expect(sidecarStepFor(IMPLIED, IMPLIED, null)).toEqual({ action: 'remove' });
    expect(sidecarStepFor(IMPLIED, 'text/turtle', null)).toEqual({ action: 'write', record: { contentType: 'text/turtle' } });
  });
});
