import { describePortableActivityPub } from './activitypub-suite.ts';
import { startBun, startExtraRuntime } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('bun', startBun);
describePortableActivityPub('bun', (options) => startExtraRuntime('bun', [], options));
