/**
 * Debian's chromium driven by playwright-core, as every browser test launches it. Without /usr/bin/chromium
 * a browser test is skipped (`describe.skipIf(!hasChromium)`), except in CI (CI=true), where importing this
 * module fails: scripts/setup-system.sh installs chromium there.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS: readonly string[] = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (scripts/setup-system.sh installs it).`);
}

/** Starts chromium with the team's flags and any `extraArgs` (host mappings, origins treated as secure). */
export function launchChromium(extraArgs: readonly string[] = [], options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({ ...options, executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS, ...extraArgs] });
}
