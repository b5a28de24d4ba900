// /docs: Swagger UI (Apache-2.0, from npm) rendering /v1/openapi.json with every request and
// response body and their examples. Served from this origin like the app, under the same policy.

import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './styles/docs.css';

type Server = { url: string; description?: string };
type Spec = { servers?: Server[]; paths?: Record<string, Record<string, { servers?: Server[] }>> };

/** The document names PUBLIC_URL; "Try it out" goes to the origin this page came from (the policy allows no other). */
const here = (servers: Server[] | undefined) => servers?.map((s) => ({ ...s, url: location.origin + new URL(s.url, location.origin).pathname.replace(/\/$/, '') }));

async function main(): Promise<void> {
  const spec = (await (await fetch('/v1/openapi.json')).json()) as Spec;
  spec.servers = here(spec.servers);
  for (const ops of Object.values(spec.paths ?? {})) for (const op of Object.values(ops)) if (op.servers) op.servers = here(op.servers);
  SwaggerUI({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Nothing leaves this origin: no badge from the online validator.
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    // "Try it out" sends real requests with the token given under "Authorize" (kept in memory only).
    persistAuthorization: false,
  });
}

void main();
