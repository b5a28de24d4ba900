import { z } from 'zod';
import type { Services } from '../../services/index.ts';
import { CreateWebhookBody, DeliveryView, WebhookView } from '../../services/webhooks.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const tags = ['Webhooks'];
const PageQuery = z.object(pageQuery);

/** DESIGN 2.7: the caller's own endpoints; anyone else's are WEBHOOK_NOT_FOUND. */
export function webhookRoutes({ webhooks }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Register an endpoint for events (Standard Webhooks signatures with your secret, which is never shown again)',
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      body: CreateWebhookBody,
      status: 201,
      response: WebhookView,
      errors: ['WEBHOOK_LIMIT'],
      handler: ({ user, body }) => webhooks.create(user!.id, body),
    }),
    route({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'Your endpoints, newest first',
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      query: PageQuery,
      envelope: 'list',
      response: z.array(WebhookView),
      handler: async ({ user, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { webhooks: found, total } = await webhooks.list(user!.id, page);
        return new HttpAnswer(200, { success: true, data: found, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'get',
      path: '/webhooks/:id',
      operationId: 'getWebhook',
      ids: { id: 'WEBHOOK_NOT_FOUND' },
      summary: 'One of your endpoints',
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      response: WebhookView,
      errors: ['WEBHOOK_NOT_FOUND'],
      handler: ({ user, params }) => webhooks.get(user!.id, params.id),
    }),
    route({
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      ids: { id: 'WEBHOOK_NOT_FOUND' },
      summary: 'Remove an endpoint (its pending deliveries go with it)',
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      status: 204,
      errors: ['WEBHOOK_NOT_FOUND'],
      handler: async ({ user, params }) => {
        await webhooks.remove(user!.id, params.id);
        return new HttpAnswer(204);
      },
    }),
    route({
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      ids: { id: 'WEBHOOK_NOT_FOUND' },
      summary: "An endpoint's deliveries, newest first: event, status, attempts, last response code, next attempt",
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      query: PageQuery,
      envelope: 'list',
      response: z.array(DeliveryView),
      errors: ['WEBHOOK_NOT_FOUND'],
      handler: async ({ user, params, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { deliveries, total } = await webhooks.deliveries(user!.id, params.id, page);
        return new HttpAnswer(200, { success: true, data: deliveries, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'post',
      path: '/webhooks/:id/test',
      operationId: 'testWebhook',
      ids: { id: 'WEBHOOK_NOT_FOUND' },
      summary: 'Send a webhook.test delivery to the endpoint (at most 3 pending per endpoint, else 429)',
      tags,
      scope: 'webhooks:write',
      auth: 'required',
      status: 202,
      response: DeliveryView,
      errors: ['WEBHOOK_NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
      handler: ({ user, params }) => webhooks.test(user!.id, params.id),
    }),
  ];
}
