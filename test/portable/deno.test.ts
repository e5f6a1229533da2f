import { describePortableActivityPub } from './activitypub-suite.ts';
import { describePortableNotifications } from './notifications-suite.ts';
import { describePortableRelay } from './relay-suite.ts';
import { startDeno, startExtraRuntime } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('deno', startDeno);
describePortableActivityPub('deno', (options) => startExtraRuntime('deno', [], options));
describePortableNotifications('deno', (options) => startExtraRuntime('deno', [], options), true);
describePortableRelay('deno', (options) => startExtraRuntime('deno', [], options));
