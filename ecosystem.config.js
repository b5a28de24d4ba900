// PM2: N processes (fork mode), one port each, joined into one service through Redis (presence,
// matchmaker driver, rate limits) and PostgreSQL. Put a load balancer in front of the ports.
//   DATABASE_URL=postgres://… REDIS_URL=redis://… SMTP_URL=smtp://… npx pm2 start ecosystem.config.js
// INSTANCES (default: one per core), PORT (the first; process i listens on PORT + i). A game's
// socket must reach the process holding its room: each process announces where (PUBLIC_ADDRESS),
// either its own port on PUBLIC_HOST (default localhost), or, with PROXY_HOST set (behind the
// nginx of docs/operations.md), PROXY_HOST/node-<i>, a path the proxy sends to process i.
// The package is an ES module, so this file is too: PM2 require()s it, which Node ≥ 20.19
// answers with the module namespace: the named `apps` export is what it reads there (the
// default export serves `import`).
import os from 'node:os';

// Every node must sign and check tokens with the same key and issuer, and build the same links;
// production delivers mail (reset links) through SMTP, never into files.
for (const name of ['JWT_SECRET', 'PUBLIC_URL', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']) {
  if (!process.env[name]) throw new Error(`ecosystem.config.js: set ${name} (shared by every process)`);
}

const instances = Number(process.env.INSTANCES || os.cpus().length);
const basePort = Number(process.env.PORT || 2567);
const host = process.env.PUBLIC_HOST || 'localhost';
const proxy = process.env.PROXY_HOST;

export const apps = Array.from({ length: instances }, (_, i) => ({
  name: `chess-${i}`,
  script: 'src/index.ts',
  interpreter: 'node',
  interpreter_args: '--import tsx',
  exec_mode: 'fork',
  // SIGTERM drains within 10 s (DESIGN 3); give it a little more before SIGKILL.
  kill_timeout: 12_000,
  env: {
    NODE_ENV: process.env.NODE_ENV || 'production',
    PORT: String(basePort + i),
    PUBLIC_ADDRESS: proxy ? `${proxy}/node-${i}` : `${host}:${basePort + i}`,
  },
}));

export default { apps };
