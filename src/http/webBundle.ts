import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile, type OutputFile } from 'esbuild';
import type { Logger } from '../logger.ts';

/** One built file: its bytes, its type, and a gzip of it when that is smaller. */
export type Asset = { body: Buffer; gzip?: Buffer; type: string };

/** The script and stylesheet one page loads, as `/assets/…` URLs. */
export type Entry = { js: string; css?: string };

export type WebBundle = {
  app: Entry;
  docs: Entry;
  /** By file name (`app-5HT2…js`): every file of both builds. */
  assets: Map<string, Asset>;
};

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PUBLIC_PATH = '/assets';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The browser app (src/web) and the API reference, bundled by esbuild in memory: nothing is
 * written to disk, so `npm start` and `npm test` serve them without a build step and no build
 * output can be committed. Every name carries a hash of its content, so the files are served as
 * immutable and a new version is a new name; esbuild is deterministic, so every node of a
 * cluster builds the same names. Built once, on first use (about a second on two cores).
 */
export function webBundle(log: Logger): () => Promise<WebBundle> {
  let built: Promise<WebBundle> | undefined;
  return () => {
    built ??= buildAll(log).catch((error) => {
      built = undefined; // a failed build is tried again on the next request
      throw error;
    });
    return built;
  };
}

async function buildAll(log: Logger): Promise<WebBundle> {
  // The build's real duration, for the log line only.
  const started = performance.now();
  const [app, docs] = await Promise.all([
    // The app gets source maps (readable stack traces); the reference is a vendor bundle.
    bundle('src/web/main.ts', 'app', { sourcemap: 'linked' }),
    bundle('src/web/docs.ts', 'docs', {}),
  ]);
  const assets = new Map([...app.assets, ...docs.assets]);
  const size = [...assets.values()].reduce((n, a) => n + a.body.length, 0);
  log.info({ files: assets.size, kilobytes: Math.round(size / 1024), ms: Math.round(performance.now() - started) }, 'web app built');
  return { app: app.entry, docs: docs.entry, assets };
}

async function bundle(entryPoint: string, name: string, extra: BuildOptions): Promise<{ entry: Entry; assets: Map<string, Asset> }> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: entryPoint },
    tsconfig: 'src/web/tsconfig.json',
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    outdir: 'assets',
    publicPath: PUBLIC_PATH,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file' },
    // Licence comments of the bundled packages go into a file of their own beside the bundle.
    legalComments: 'linked',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    ...extra,
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles!) assets.set(path.basename(file.path), toAsset(file));
  return { entry: entryOf(result.metafile!, entryPoint), assets };
}

function toAsset(file: OutputFile): Asset {
  const body = Buffer.from(file.contents);
  const gzip = body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
  return { body, type: TYPES[path.extname(file.path)] ?? 'application/octet-stream', ...(gzip && gzip.length < body.length ? { gzip } : {}) };
}

function entryOf(metafile: Metafile, entryPoint: string): Entry {
  const [js, output] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === entryPoint) ?? [];
  if (!js || !output) throw new Error(`esbuild produced no output for ${entryPoint}`);
  const url = (file: string) => `${PUBLIC_PATH}/${path.basename(file)}`;
  return { js: url(js), ...(output.cssBundle ? { css: url(output.cssBundle) } : {}) };
}
