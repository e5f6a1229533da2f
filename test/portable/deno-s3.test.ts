import { startExtraRuntimeOnS3 } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('deno with --storage s3', () => startExtraRuntimeOnS3('deno'));
