/** The owner's notifications, v1 and Mastodon 4.3's grouped v2, from the ActivityPub feature's inbox. */
import type { Context, Hono } from 'hono';
import { notificationEntityOf, socialRequests, type Federated, type SocialRoutesContext } from './federated.ts';
import { MAX_ACCOUNT_PAGE, pageOf } from './paging.ts';
import { listOf, queryParameters, stringOf } from './parameters.ts';
import { json, listResponse, notFound } from './responses.ts';
import type { StatusRenderer } from './status-entity.ts';
import type { NotificationItem } from './timeline.ts';

type Json = Record<string, unknown>;

export function notificationRoutes(context: SocialRoutesContext): (app: Hono) => void {
  const { federated, ownerToken, viewerOf } = socialRequests(context);

  return (app) => {
    const notificationEntity = (found: Federated, renderer: StatusRenderer, item: NotificationItem) => notificationEntityOf(context.remoteAccounts, found, renderer, item);

    const wantedNotifications = async (c: Context, found: Federated) => {
      const query = queryParameters(new URL(c.req.url));
      const types = listOf(query, 'types');
      const excluded = listOf(query, 'exclude_types');
      const from = stringOf(query.account_id);
      const fromActor = from ? await context.remoteAccounts.actorOf(from) : null;
      return (await found.catalog.notifications()).filter((item) => (types.length === 0 || types.includes(item.type)) && !excluded.includes(item.type) && (from === null || item.author === fromActor));
    };

    app.get('/api/v1/notifications', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const { items, link } = pageOf(await wantedNotifications(c, found), new URL(c.req.url), MAX_ACCOUNT_PAGE);
      const renderer = found.renderer(await viewerOf(c, 'notifications'));
      const entities = await Promise.all(items.map((item) => notificationEntity(found, renderer, item)));
      return listResponse(entities.filter((entity) => entity !== null), link);
    });

    /** The same count in v1 and v2: there are no groups of more than one notification here. */
    const unreadCount = async (c: Context) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      return json({ count: (await wantedNotifications(c, found)).length });
    };
    app.get('/api/v1/notifications/unread_count', unreadCount);

    app.get('/api/v1/notifications/:id', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const item = (await found.catalog.notifications()).find((notification) => notification.id === c.req.param('id'));
      const entity = item ? await notificationEntity(found, found.renderer(await viewerOf(c, 'notifications')), item) : null;
      if (!entity) throw notFound();
      return json(entity);
    });

    /** Grouped notifications (Mastodon 4.3's v2): each notification is a group of its own here. */
    app.get('/api/v2/notifications', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const { items, link } = pageOf(await wantedNotifications(c, found), new URL(c.req.url), MAX_ACCOUNT_PAGE);
      const renderer = found.renderer(await viewerOf(c, 'notifications'));
      const accounts = new Map<string, Json>();
      const statuses = new Map<string, Json>();
      const groups: Json[] = [];
      for (const item of items) {
        const account = await context.remoteAccounts.entity(found.social, item.author);
        const status = item.status ? await renderer.entity(item.status) : null;
        if (item.status && !status) continue;
        accounts.set(account.id as string, account);
        if (status) statuses.set(status.id as string, status);
        groups.push({
          group_key: `ungrouped-${item.id}`,
          notifications_count: 1,
          type: item.type,
          most_recent_notification_id: item.id,
          page_min_id: item.id,
          page_max_id: item.id,
          latest_page_notification_at: item.createdAt,
          sample_account_ids: [account.id],
          status_id: status?.id ?? null,
        });
      }
      const body = { accounts: [...accounts.values()], statuses: [...statuses.values()], notification_groups: groups };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'Cache-Control': 'no-store', ...(link && { link }) } });
    });

    app.get('/api/v2/notifications/unread_count', unreadCount);
  };
}
