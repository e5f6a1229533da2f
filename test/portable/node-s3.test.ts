import { startNodeOnS3 } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('node with --storage s3', startNodeOnS3);
