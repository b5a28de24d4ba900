// /docs: Swagger UI (Apache-2.0, from npm) rendering /v1/openapi.json with every request and
// response body and their examples. Served from this origin like the app, under the same policy.

import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './styles/docs.css';

SwaggerUI({
  url: '/v1/openapi.json',
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
