/**
 * Where a `--cpu-prof` profile's time went, by area of the service (loadtest/profile.ts prints it).
 *
 * A sample's time is the gap to the next sample (the last one's, to the profile's endTime), cut
 * to the window asked for; the time goes to the sample's own frame (self time), and the area is
 * chosen by that frame, or by its callers when the frame itself says nothing:
 *
 * - A frame is *owned* when it names an area by itself: our code (`src/domain/` is chess, the rest
 *   of `src/` and `rooms/` is services), a package listed in PACKAGE_AREAS, the garbage collector,
 *   `(idle)` and `(program)` (V8's name for native code outside JS: the event loop polling,
 *   libuv and C++ between callbacks; nothing in the profile says for whom, so native/other).
 * - Otherwise (a Node internal `node:…`, a native with no url such as `writev` or
 *   `JSON.stringify`, a package not listed) the time goes to the nearest owned caller: a
 *   JSON.stringify called by a room is services', a `writev` under pg's connection is the
 *   database client's, the same `writev` under ws is the sockets'. A package not listed is a
 *   helper of whoever calls it (eventemitter3 under Colyseus is sockets, zod or pino under a room
 *   is services).
 * - Network I/O is the database client's or the sockets': a stack that passes through Node's
 *   network internals (net, streams, tls, http, `stream_base_commons`) or a stream handle's
 *   native (`writev`, `writeBuffer`…) on its way up to its owned caller is the database client's
 *   when that caller is pg's, and the sockets' otherwise, also when our code flushed it (a room
 *   uncorking its clients' sockets, express ending a response): the bytes' way to the kernel is
 *   the same whoever asked.
 * - With no owned caller: a stack through the network internals is the sockets' (a socket's read
 *   callback before the bytes reach their owner's handler, whichever socket it is, PostgreSQL's
 *   too); else an unlisted package's time is services' (the libraries of the side app and the
 *   services: logging, metrics, validation); the rest (timers, the microtask queue's dispatch,
 *   `runMicrotasks`) is native/other.
 *
 * The profile is the main thread's: GC work on V8's helper threads, libuv's pool and the tsx
 * loader's thread are not in it (the process's CPU from /proc, beside it in the report, is). A
 * sample is taken on a timer, so time the thread spent descheduled on a busy machine counts for
 * whatever it was running.
 */
import path from 'node:path';

export type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number; scriptId?: string | number };
export type ProfileNode = { id: number; callFrame: CallFrame; children?: number[]; hitCount?: number };
/** The `.cpuprofile` format Node's `--cpu-prof` writes (Chrome DevTools' Profiler.Profile), times in µs. */
export type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

export const AREAS = ['database_client', 'sockets', 'chess', 'services', 'gc', 'native_other'] as const;
export type Area = (typeof AREAS)[number];

/** npm packages that name an area by themselves (a package's name, scoped ones with their scope). */
export const PACKAGE_AREAS: [RegExp, Area][] = [
  [/^(pg|pg-.+|pgpass|postgres-.+|ioredis|@ioredis\/.+|redis-.+)$/, 'database_client'],
  [/^(ws|@colyseus\/.+|msgpackr|msgpackr-extract|bufferutil|utf-8-validate)$/, 'sockets'],
  [/^chess\.js$/, 'chess'],
  [/^express$/, 'services'],
];

/** Node internals that move bytes over the network: a stack made only of them and natives is a socket's. */
const NETWORK_INTERNAL = /^node:(net|tls|dgram|dns|http|https|stream|_http_\w+|_tls_\w+|_stream_\w+|internal\/(net|stream_base_commons|js_stream_socket|http|streams\/.+|tls\/.+|dns\/.+))$/;
/** Natives of a stream handle (they show with no url). */
const NETWORK_NATIVE = /^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString|writeUcs2String|readStart|readStop|shutdown)$/;

/** What one frame says by itself. */
type FrameKind =
  | { kind: 'owned'; area: Area | 'idle'; owner: string }
  | { kind: 'package'; owner: string } // an npm package not in PACKAGE_AREAS
  | { kind: 'internal'; network: boolean; owner: string }; // node:… or a native

/** The npm package a path is in (the last node_modules/ on it), e.g. `pg-protocol`, `@colyseus/core`. */
export function packageOf(file: string): string | undefined {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const parts = file.slice(at + '/node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

export function classifyFrame(frame: CallFrame, root: string): FrameKind {
  const name = frame.functionName;
  if (name === '(garbage collector)') return { kind: 'owned', area: 'gc', owner: '(garbage collector)' };
  if (name === '(idle)') return { kind: 'owned', area: 'idle', owner: '(idle)' };
  if (name === '(program)') return { kind: 'owned', area: 'native_other', owner: '(program)' };
  if (name === '(root)') return { kind: 'internal', network: false, owner: '(root)' };
  const url = frame.url;
  if (!url) return { kind: 'internal', network: NETWORK_NATIVE.test(name), owner: '(native)' };
  if (url.startsWith('node:')) return { kind: 'internal', network: NETWORK_INTERNAL.test(url), owner: url };
  const file = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const pkg = packageOf(file);
  if (pkg) {
    const listed = PACKAGE_AREAS.find(([pattern]) => pattern.test(pkg));
    return listed ? { kind: 'owned', area: listed[1], owner: pkg } : { kind: 'package', owner: pkg };
  }
  const relative = path.relative(root, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return { kind: 'internal', network: false, owner: file };
  const dir = relative.split(path.sep).slice(0, relative.startsWith('src') ? 2 : 1).join('/');
  return { kind: 'owned', area: relative.startsWith(`src${path.sep}domain${path.sep}`) ? 'chess' : 'services', owner: dir };
}

export type FunctionTime = { function: string; where: string; area: Area; self_ms: number };
export type Breakdown = {
  /** Main-thread time the samples in the window cover, idle included (ms). */
  sampled_ms: number;
  idle_ms: number;
  busy_ms: number;
  samples: number;
  areas: Record<Area, number>;
  /** Busy time by the sample's own frame's owner: a package, a directory of ours, a node: module, (native). */
  owners: Record<string, number>;
  /** Self time per function and area (one function may be in more than one area), largest first. */
  functions: FunctionTime[];
};

/**
 * The busy time of `profile` by area, counting only what fell between `from` and `to` (µs on the
 * profile's clock, the machine's monotonic clock: `process.hrtime` in another process reads it too).
 */
export function attribute(profile: CpuProfile, o: { root: string; from?: number; to?: number }): Breakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const kinds = new Map(profile.nodes.map((n) => [n.id, classifyFrame(n.callFrame, o.root)]));
  const areaCache = new Map<number, Area | 'idle'>();
  const areaOf = (leaf: number): Area | 'idle' => {
    const cached = areaCache.get(leaf);
    if (cached) return cached;
    let unlistedPackage = false;
    let network = false;
    let found: Area | 'idle' | undefined;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const k = kinds.get(id)!;
      if (k.kind === 'owned') {
        found = k.area;
        break;
      }
      if (k.kind === 'package') unlistedPackage = true;
      if (k.kind === 'internal' && k.network) network = true;
    }
    // Bytes on their way to the kernel are the database client's when it sent them, the
    // sockets' otherwise, even when our code flushed them (a room uncorking its clients' sockets).
    const area =
      found === 'database_client' || found === 'sockets' ? found
      : network ? 'sockets'
      : (found ?? (unlistedPackage ? 'services' : 'native_other'));
    areaCache.set(leaf, area);
    return area;
  };

  // Samples are in time order but for the odd negative delta: sort by timestamp to be sure.
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));
  const order = times.map((_, i) => i).sort((a, b) => times[a] - times[b] || a - b);
  const from = o.from ?? -Infinity;
  const to = o.to ?? Infinity;

  const areas = Object.fromEntries(AREAS.map((a) => [a, 0])) as Record<Area, number>;
  const owners: Record<string, number> = {};
  const functions = new Map<string, FunctionTime>();
  let idle = 0;
  let sampled = 0;
  let count = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const start = times[i];
    const end = k + 1 < order.length ? times[order[k + 1]] : profile.endTime;
    const us = Math.min(end, to) - Math.max(start, from);
    if (us <= 0) continue;
    const ms = us / 1000;
    const id = profile.samples[i];
    const area = areaOf(id);
    count++;
    sampled += ms;
    if (area === 'idle') {
      idle += ms;
      continue;
    }
    areas[area] += ms;
    const node = byId.get(id)!;
    const frame = node.callFrame;
    const owner = kinds.get(id)!.owner;
    owners[owner] = (owners[owner] ?? 0) + ms;
    const where = whereOf(frame, o.root);
    const key = `${frame.functionName}\u0000${where}\u0000${area}`;
    const f = functions.get(key) ?? { function: frame.functionName || '(anonymous)', where, area, self_ms: 0 };
    f.self_ms += ms;
    functions.set(key, f);
  }
  return {
    sampled_ms: sampled,
    idle_ms: idle,
    busy_ms: sampled - idle,
    samples: count,
    areas,
    owners,
    functions: [...functions.values()].sort((a, b) => b.self_ms - a.self_ms),
  };
}

/**
 * A frame's place without the machine's path: `node_modules/pg/lib/client.js:120`,
 * `src/db/games.ts`. Our TypeScript has no line: tsx hands V8 its output on one line, so the
 * profile's position is in code nobody reads (the function's name says which one it is).
 */
function whereOf(frame: CallFrame, root: string): string {
  if (!frame.url) return '(native)';
  const file = frame.url.startsWith('file://') ? decodeURIComponent(frame.url.slice('file://'.length)) : frame.url;
  const at = file.lastIndexOf('/node_modules/');
  if (at >= 0) return `${file.slice(at + 1)}:${frame.lineNumber + 1}`;
  if (file.startsWith(`${root}/`) && file.endsWith('.ts')) return file.slice(root.length + 1);
  return `${file}:${frame.lineNumber + 1}`;
}
