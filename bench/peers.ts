/**
 * The peer servers, installed on demand into `.bench/peers` (ignored by git) so that they never weigh on the
 * project's own install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PEERS_DIR = join(import.meta.dirname, '..', '.bench', 'peers');
export const PEER_PACKAGES = {
  jss: 'javascript-solid-server@0.0.81',
  css: '@solid/community-server@7.2.0',
} as const;

export const JSS_BIN = join(PEERS_DIR, 'node_modules', 'javascript-solid-server', 'bin', 'jss.js');
export const CSS_BIN = join(PEERS_DIR, 'node_modules', '@solid', 'community-server', 'bin', 'server.js');

/** Installs the peers unless the pinned versions are already there; prints what it does. */
export function ensurePeersInstalled(log: (line: string) => void): void {
  const installed = (name: string, version: string) => {
    const manifest = join(PEERS_DIR, 'node_modules', name, 'package.json');
    return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === version;
  };
  if (installed('javascript-solid-server', '0.0.81') && installed('@solid/community-server', '7.2.0')) return;
  mkdirSync(PEERS_DIR, { recursive: true });
  writeFileSync(join(PEERS_DIR, 'package.json'), JSON.stringify({ name: 'svc-bench-peers', private: true }, null, 2));
  log(`installing ${Object.values(PEER_PACKAGES).join(' and ')} into ${PEERS_DIR} (once; about a minute)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--save-exact', ...Object.values(PEER_PACKAGES)], { cwd: PEERS_DIR, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error(`npm install of the peers failed (exit ${result.status})`);
}
