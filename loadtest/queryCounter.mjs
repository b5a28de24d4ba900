// Loaded into the service process by loadtest/reads.ts (`node --import`): counts the statements
// the process sends to PostgreSQL, and prints the count on SIGUSR2 ("queries <n>"), so the
// benchmark can divide by the requests it made. Plain JavaScript: it is imported before tsx.
import pg from 'pg';

let queries = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  queries++;
  return query.apply(this, args);
};
process.on('SIGUSR2', () => process.stdout.write(`queries ${queries}\n`));
