import { describePortableActivityPub } from './activitypub-suite.ts';
import { describePortableNotifications } from './notifications-suite.ts';
import { describePortableRelay } from './relay-suite.ts';
import { startBun, startExtraRuntime } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('bun', startBun);
describePortableActivityPub('bun', (options) => startExtraRuntime('bun', [], options));
describePortableNotifications('bun', (options) => startExtraRuntime('bun', [], options), true);
describePortableRelay('bun', (options) => startExtraRuntime('bun', [], options));
