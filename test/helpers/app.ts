import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createHttpApp, type HttpAppOptions } from '../../src/http/app.ts';
import { opsRouter } from '../../src/http/ops.ts';
import { createLogger } from '../../src/logger.ts';

/** An HTTP app of the service's own make on a free port, with the options a test needs. */
export async function startApp(o: Partial<HttpAppOptions> & { metricsToken?: string }): Promise<{ url: string; close: () => Promise<void> }> {
  const registry = new Registry();
  const app = createHttpApp({
    log: createLogger('silent'),
    trustProxy: false,
    routes: [],
    deps: { authenticate: async () => assert.fail('no auth here'), rateLimit: async () => {} },
    ops: opsRouter({
      probes: {},
      registry,
      openapi: () => ({}),
      metricsToken: o.metricsToken,
      nodeId: () => 'test',
    }),
    ...o,
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

