/**
 * What svc says about itself (User-Agent, NIP-11, NodeInfo, the Mastodon instance): package.json is the one
 * source of its version and of the project's homepage (`homepage`, else `repository`), so a release changes
 * one file.
 */
import packageJson from '../../package.json' with { type: 'json' };

interface PackageFacts {
  version: string;
  homepage?: string;
  repository?: string | { url?: string };
}

const facts: PackageFacts = packageJson;

export const SVC_VERSION = facts.version;

/** The project's web address, for documents that ask for a URL (NIP-11 `software`); none while package.json names none. */
export const SVC_HOMEPAGE: string | undefined = httpUrl(facts.homepage ?? (typeof facts.repository === 'string' ? facts.repository : facts.repository?.url));

function httpUrl(value: string | undefined): string | undefined {
  // npm's repository URLs may be `git+https://...`: the page a person opens is the https one.
  const url = value?.replace(/^git\+/, '');
  return url && /^https?:\/\//.test(url) ? url : undefined;
}
