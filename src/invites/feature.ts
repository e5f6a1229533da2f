/** `--invite-only`: a pod is created only with an invite code, one use of which it consumes. */
import type { FeatureCode } from '../features/feature.ts';
import { InviteStore, redeemInvite } from './store.ts';

export const invitesCode: FeatureCode = {
  create(context) {
    const invites = new InviteStore(context.platform.storage, context.now);
    return { podCreation: { admit: (fields, create) => redeemInvite(invites, fields.invite, create) } };
  },
};
