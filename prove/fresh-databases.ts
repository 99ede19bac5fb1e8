// One fresh PGlite per contender, fast: the WebAssembly is compiled once and the freshly initialised data directory
// is dumped once, so every later database skips initdb (about 10x faster than PGlite.create() from scratch). The
// template can be handed to worker threads (compiled modules and bytes clone across them), so contenders running
// side by side do not each compile and initialise their own.
import { readFile } from "node:fs/promises";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;

/** What every fresh database starts from; structured-cloneable, for `workerData`. */
export interface DatabaseTemplate {
  pgliteWasmModule: WasmModule;
  initdbWasmModule: WasmModule;
  fsBundle: Uint8Array;
  dataDir: Uint8Array;
}

export class FreshDatabases {
  #template: Promise<DatabaseTemplate> | undefined;

  /** A template given (or still on its way: a worker thread gets it from its parent) is used instead of building one. */
  constructor(template?: DatabaseTemplate | Promise<DatabaseTemplate>) {
    if (template) this.#template = Promise.resolve(template);
  }

  /** Built on first use, then shared. */
  template(): Promise<DatabaseTemplate> {
    this.#template ??= buildTemplate();
    return this.#template;
  }

  async create(): Promise<PGlite> {
    const { pgliteWasmModule, initdbWasmModule, fsBundle, dataDir } = await this.template();
    return PGlite.create({ pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([fsBundle]), loadDataDir: new Blob([dataDir]) });
  }
}

/** Node's global WebAssembly (the project's `lib` carries no DOM or WebAssembly typings). */
const webAssembly = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

async function buildTemplate(): Promise<DatabaseTemplate> {
  const dist = new URL("./", import.meta.resolve("@electric-sql/pglite"));
  const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
    readFile(new URL("pglite.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("initdb.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("pglite.data", dist)),
  ]);
  const first = await PGlite.create({ pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([fsBundle]) });
  try {
    const dataDir = new Uint8Array(await (await first.dumpDataDir("none")).arrayBuffer());
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Uint8Array(fsBundle), dataDir };
  } finally {
    await first.close();
  }
}
