// One fresh PGlite per contender, fast: the WebAssembly is compiled once and the freshly initialised data directory
// is dumped once, so every later database skips initdb (about 10x faster than PGlite.create() from scratch).
import { readFile } from "node:fs/promises";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

export class FreshDatabases {
  #template: Promise<PGliteOptions> | undefined;

  async create(): Promise<PGlite> {
    this.#template ??= buildTemplate();
    return PGlite.create(await this.#template);
  }
}

type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;
/** Node's global WebAssembly (the project's `lib` carries no DOM or WebAssembly typings). */
const webAssembly = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

async function buildTemplate(): Promise<PGliteOptions> {
  const dist = new URL("./", import.meta.resolve("@electric-sql/pglite"));
  const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
    readFile(new URL("pglite.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("initdb.wasm", dist)).then((bytes) => webAssembly.compile(bytes)),
    readFile(new URL("pglite.data", dist)).then((bytes) => new Blob([bytes])),
  ]);
  const modules = { pgliteWasmModule, initdbWasmModule, fsBundle };
  const first = await PGlite.create(modules);
  try {
    return { ...modules, loadDataDir: await first.dumpDataDir("none") };
  } finally {
    await first.close();
  }
}
