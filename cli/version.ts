import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The package root: the nearest folder above this file with a package.json (from cli/ in source, dist/cli/ built).
function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const rootDir: string = packageRoot(dirname(fileURLToPath(import.meta.url)));
export const version: string = (JSON.parse(readFileSync(join(rootDir, "package.json"), "utf8")) as { version: string })
  .version;
