#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so the sources run as they are, with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../runtimes/node/cli.ts');
