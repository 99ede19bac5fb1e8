// One fresh PGlite per contender, fast: the WebAssembly is compiled once and the freshly initialised data directory
// is dumped once, so every later database skips initdb (about 10x faster than PGlite.create() from scratch). The
// template can be handed to worker threads (compiled modules clone across them; the bytes live in shared memory, so
// a worker gets them without a copy: the data directory is 40 MB, and copying it to each worker cost about 0.35 s of
// CPU per contender), so contenders running side by side do not each compile and initialise their own.
import { readFile } from "node:fs/promises";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { cacheDataDir, readCachedDataDir, templateCachePath } from "./template-cache.js";

type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;

/** What every fresh database starts from; structured-cloneable, for `workerData` (the bytes in shared memory). */
export interface DatabaseTemplate {
  pgliteWasmModule: WasmModule;
  initdbWasmModule: WasmModule;
  fsBundle: Uint8Array;
  dataDir: Uint8Array;
}

/**
 * The bytes PGlite reads as a Blob, handed over with one copy. PGlite only calls `arrayBuffer()`; Node's own Blob
 * reads a big one in chunks and joins them (about 0.5 s of CPU per database for the 46 MB here), and cannot be made
 * from shared memory at all.
 */
class BytesBlob extends Blob {
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    super([]);
    this.#bytes = bytes;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    // A private copy: PGlite keeps what it is given, and the template's bytes are shared by every database.
    return Promise.resolve(this.#bytes.slice().buffer as ArrayBuffer);
  }
}

export interface FreshDatabasesOptions {
  /** Where the initialised data directory is kept between runs (default: template-cache.ts); null: made every run. */
  cacheFile?: string | null;
}

export class FreshDatabases {
  #template: Promise<DatabaseTemplate> | undefined;
  readonly #cacheFile: string | null | undefined;

  /** A template given (or still on its way: a worker thread gets it from its parent) is used instead of building one. */
  constructor(template?: DatabaseTemplate | Promise<DatabaseTemplate>, options: FreshDatabasesOptions = {}) {
    if (template) this.#template = Promise.resolve(template);
    this.#cacheFile = options.cacheFile;
  }

  /** Built on first use (or read from the cache), then shared. */
  template(): Promise<DatabaseTemplate> {
    this.#template ??= buildTemplate(this.#cacheFile === undefined ? templateCachePath() : this.#cacheFile);
    return this.#template;
  }

  async create(): Promise<PGlite> {
    const { pgliteWasmModule, initdbWasmModule, fsBundle, dataDir } = await this.template();
    return PGlite.create({ pgliteWasmModule, initdbWasmModule, fsBundle: new BytesBlob(fsBundle), loadDataDir: new BytesBlob(dataDir) });
  }
}

/** Node's global WebAssembly (the project's `lib` carries no DOM or WebAssembly typings). */
const webAssembly = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

async function buildTemplate(cacheFile: string | null): Promise<DatabaseTemplate> {
  const dist = new URL("./", import.meta.resolve("@electric-sql/pglite"));
  const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
    readFile(new URL("pglite.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("initdb.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("pglite.data", dist)),
  ]);
  const modules = { pgliteWasmModule, initdbWasmModule, fsBundle: shared(fsBundle) };
  const cached = cacheFile === null ? undefined : await readCachedDataDir(cacheFile);
  if (cached) return { ...modules, dataDir: shared(cached) };
  const first = await PGlite.create({ pgliteWasmModule, initdbWasmModule, fsBundle: new BytesBlob(fsBundle) });
  try {
    const dataDir = new Uint8Array(await (await first.dumpDataDir("none")).arrayBuffer());
    if (cacheFile !== null) await cacheDataDir(cacheFile, dataDir);
    return { ...modules, dataDir: shared(dataDir) };
  } finally {
    await first.close();
  }
}

/** The bytes copied once into shared memory: posting them to a worker thread then shares them instead of copying. */
function shared(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}
