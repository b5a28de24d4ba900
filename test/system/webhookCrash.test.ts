import assert from 'node:assert/strict';
import { createDatabase } from '../support/database.ts';
import { postData, startGameOverApi, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { WebhookReceiver, type Received } from '../support/receiver.ts';
import { testService } from '../helpers/service.ts';

/**
 * At least once, whatever happens to the delivering process: `npm start`'s process is stopped
 * (SIGTERM) or killed (SIGKILL) while deliveries are in flight to a slow receiver; a new process
 * on the same database delivers the rest. Every event arrives; a duplicate has the id of the
 * first (a receiver dedupes on webhook-id).
 */
describe('webhooks across a stop and a crash of the delivering process', function () {
  this.timeout(90_000);
  let db: { url: string; drop: () => Promise<void> };
  let receiver: WebhookReceiver;
  const env = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_SECONDS: '1', FIRST_MOVE_SECONDS: '60', JWT_SECRET: 'crash-test-secret-'.padEnd(48, 'x') };

  before(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
  });
  beforeEach(() => (receiver = new WebhookReceiver()));
  afterEach(() => receiver.stop());
  after(() => db.drop());

  /** The moves each webhook-id carried, and every move's first arrival in order. */
  function check(received: Received[], plies: number): void {
    const moves = received.filter((r) => r.json?.type === 'game.move');
    const idOf = new Map<number, string>();
    for (const r of moves) {
      const ply = r.json.data.move_count as number;
      const id = r.headers['webhook-id'] as string;
      assert.equal(idOf.get(ply) ?? id, id, `ply ${ply} came again under another id`);
      idOf.set(ply, id);
    }
    assert.deepEqual([...idOf.keys()].sort((a, b) => a - b), Array.from({ length: plies }, (_, i) => i + 1), 'every move arrived');
    const firsts = moves.filter((r, i) => moves.findIndex((o) => o.headers['webhook-id'] === r.headers['webhook-id']) === i);
    assert.deepEqual(firsts.map((r) => r.json.data.move_count), Array.from({ length: plies }, (_, i) => i + 1), 'in order');
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`delivers every move at least once, in order, across a ${signal} of the delivering process`, async () => {
      const url = await receiver.start();
      let first: ServiceProcess | undefined = await startServiceProcess(db.url, { env });
      let second: ServiceProcess | undefined;
      try {
        const base = `${first.base}/v1`;
        const tag = `${signal.toLowerCase()}${Date.now() % 100000}`;
        const { id, white: w, black: b } = await startGameOverApi(base, tag);
        await postData(base, '/webhooks', { url, events: ['game.move'], secret: 'a-secret-of-16-chars' }, w.session.access_token);
        const line = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8', 'e2e4', 'e7e5', 'd2d4', 'd7d5'];
        // A receiver that hangs: deliveries are in flight (until the sender's 1 s timeout) when the process goes.
        receiver.respond = () => 'hang';
        for (const [i, uci] of line.entries()) {
          await postData(base, `/games/${id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, (i % 2 ? b : w).session.access_token);
        }
        await receiver.waitFor(1);
        first.child.kill(signal);
        await first.exited;
        first = undefined;
        receiver.respond = () => ({ status: 200 });
        second = await startServiceProcess(db.url, { env });
        // Until every ply has arrived while the receiver answers (the hung ones are retried).
        const deadline = Date.now() + 30_000;
        for (;;) {
          const plies = new Set(receiver.received.filter((r) => r.json?.type === 'game.move').map((r) => r.json.data.move_count));
          if (plies.size >= line.length || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        check(receiver.received, line.length);
      } finally {
        first?.child.kill('SIGKILL');
        second?.child.kill('SIGTERM');
        await Promise.all([first?.exited, second?.exited]);
      }
    });
  }
});
