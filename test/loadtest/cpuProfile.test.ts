import assert from 'node:assert/strict';
import { attribute, packageOf, type CpuProfile, type ProfileNode } from '../../loadtest/cpuProfile.ts';

const ROOT = '/srv/chess';

/** A call tree from `[id, functionName, url, children]`, as --cpu-prof writes it. */
const tree = (rows: [number, string, string, number[]?][]): ProfileNode[] =>
  rows.map(([id, functionName, url, children]) => ({ id, callFrame: { functionName, url, lineNumber: 0, columnNumber: 0 }, children }));

/** One sample a millisecond, `counts` of each node id, in the order given. */
function profileOf(nodes: ProfileNode[], counts: [number, number][]): CpuProfile {
  const samples = counts.flatMap(([id, n]) => Array<number>(n).fill(id));
  const startTime = 1_000_000;
  return { nodes, startTime, endTime: startTime + samples.length * 1000, samples, timeDeltas: samples.map((_, i) => (i ? 1000 : 0)) };
}

const service = tree([
  [1, '(root)', '', [2, 3, 4, 5, 6, 20, 22]],
  [2, '(program)', ''],
  [3, '(garbage collector)', ''],
  [4, '(idle)', ''],
  [5, 'processTicksAndRejections', 'node:internal/process/task_queues', [7, 23]],
  [7, 'flush', `file://${ROOT}/src/db/moveWriter.ts`, [8, 12]],
  [8, 'query', `${ROOT}/node_modules/pg/lib/client.js`, [9]],
  [9, 'Socket._writev', 'node:net', [10]],
  [10, 'writev', ''],
  [12, 'stringify', ''],
  [23, 'info', `file://${ROOT}/node_modules/pino/lib/proto.js`],
  [6, 'processImmediate', 'node:internal/timers', [13]],
  [13, 'flushClients', `file://${ROOT}/rooms/GameRoom.ts`, [14, 15, 16, 19]],
  [14, 'Writable.uncork', 'node:internal/streams/writable', [17]],
  [17, 'writev', ''],
  [15, 'move', `file://${ROOT}/node_modules/chess.js/dist/cjs/chess.js`],
  [16, 'playFast', `file://${ROOT}/src/domain/fastMove.ts`],
  [19, '_onMessage', `file://${ROOT}/node_modules/@colyseus/core/build/Room.mjs`, [24]],
  [24, 'emit', `file://${ROOT}/node_modules/eventemitter3/index.js`],
  [20, 'onStreamRead', 'node:internal/stream_base_commons', [21]],
  [21, 'emit', 'node:events'],
  [22, 'listOnTimeout', 'node:internal/timers'],
]);

describe('The profile breakdown by area (loadtest/cpuProfile.ts)', () => {
  it('gives each sample to its own frame, or to the nearest caller that names an area', () => {
    const b = attribute(
      profileOf(service, [
        [10, 3], // writev under pg: the database client
        [8, 1], // pg itself
        [12, 2], // JSON.stringify called by our moveWriter: services
        [7, 1], // our src/db: services
        [17, 2], // writev flushed by a room: sockets
        [15, 2], // chess.js
        [16, 1], // src/domain: chess
        [24, 1], // an unlisted package under Colyseus: sockets
        [21, 1], // a socket's read before any owner: sockets
        [22, 1], // timers with nothing of ours under them: native/other
        [2, 1], // (program)
        [3, 2], // (garbage collector)
        [4, 5], // (idle)
        [23, 1], // an unlisted package with no owned caller: services
      ]),
      { root: ROOT },
    );
    assert.deepEqual(b.areas, { database_client: 4, sockets: 4, chess: 3, services: 4, gc: 2, native_other: 2 });
    assert.equal(b.idle_ms, 5);
    assert.equal(b.busy_ms, 19);
    assert.equal(b.samples, 24);
    assert.deepEqual(b.functions[0], { function: 'writev', where: '(native)', area: 'database_client', self_ms: 3 });
    assert.deepEqual(
      b.functions.filter((f) => f.function === 'writev').map((f) => [f.area, f.self_ms]),
      [['database_client', 3], ['sockets', 2]],
      'one native, one line per area it worked for',
    );
    assert.equal(b.owners['(native)'], 7); // both writevs and the stringify
    assert.equal(b.owners['src/db'], 1);
    assert.equal(b.owners['rooms'], undefined, 'a room had no self time of its own');
  });

  it('counts only the part of each sample inside the window', () => {
    const p = profileOf(service, [[15, 3]]); // samples at +0, +1 and +2 ms, the last one lasting to +3
    const b = attribute(p, { root: ROOT, from: p.startTime + 1500, to: p.startTime + 2200 });
    assert.equal(Number(b.areas.chess.toFixed(3)), 0.7);
    assert.equal(b.samples, 2);
    assert.equal(Number(b.busy_ms.toFixed(3)), 0.7);
  });

  it('puts samples in time order when a delta is negative, as V8 writes now and then', () => {
    const p = profileOf(service, [[15, 1], [3, 1], [4, 1]]);
    p.timeDeltas = [0, 2000, -1000]; // chess at +0, gc at +2 ms, idle at +1 ms
    p.endTime = p.startTime + 3000;
    const b = attribute(p, { root: ROOT });
    assert.deepEqual([b.areas.chess, b.idle_ms, b.areas.gc], [1, 1, 1]);
  });

  it('names the package of a path by its last node_modules, with the scope', () => {
    assert.equal(packageOf('/a/node_modules/pg/node_modules/pg-types/index.js'), 'pg-types');
    assert.equal(packageOf('/a/node_modules/@colyseus/schema/build/index.js'), '@colyseus/schema');
    assert.equal(packageOf('/a/src/db/pool.ts'), undefined);
  });
});
