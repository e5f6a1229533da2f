import { describe, expect, it } from 'vitest';
import { gitTargetOf } from '../../src/git/target.ts';
import { PathError } from '../../src/storage/paths.ts';

const target = (method: string, url: string) => gitTargetOf(method, new URL(url, 'http://pod.test'));

describe('gitTargetOf', () => {
  it('reads the repository and the step of the smart protocol', () => {
    expect(target('GET', '/alice/repo/info/refs?service=git-upload-pack')).toEqual({ repository: '/alice/repo/', service: 'git-upload-pack', advertisement: true });
    expect(target('GET', '/alice/repo//info/refs?service=git-receive-pack')).toEqual({ repository: '/alice/repo/', service: 'git-receive-pack', advertisement: true });
    expect(target('POST', '/alice/a%20b/git-receive-pack')).toEqual({ repository: '/alice/a b/', service: 'git-receive-pack', advertisement: false });
  });

  it('leaves other requests to LDP, including the dumb protocol and resources named like git paths', () => {
    expect(target('GET', '/alice/repo/info/refs')).toBeNull();
    expect(target('GET', '/alice/repo/info/refs?service=git-upload-archive')).toBeNull();
    expect(target('PUT', '/alice/repo/git-receive-pack')).toBeNull();
    expect(target('GET', '/alice/repo/git-upload-pack')).toBeNull();
  });

  it('refuses paths that could leave the pod', () => {
    expect(() => target('POST', '/alice/a%5Cb/git-upload-pack')).toThrow(PathError);
    expect(() => target('GET', '/alice/a%2Fb/info/refs?service=git-upload-pack')).toThrow(PathError);
  });
});
