import { startExtraRuntimeOnS3 } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('bun with --storage s3', () => startExtraRuntimeOnS3('bun'));
