// The packages a built module reaches through static imports (`import … from`, `export … from`, `import "…"`),
// following relative imports transitively: what loading it costs before any code runs. Dynamic `import()` is not
// followed, which is the point: a package behind one loads only when that code path runs.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const staticImport = /^\s*(?:import|export)\s+(?:[^"'`;]*?\sfrom\s+)?["']([^"']+)["']/gm;

/** Bare package names ("@scope/name" or "name") reached from `entries`, with one importing file each. */
export function packagesReached(entries: readonly string[]): Map<string, string> {
  const reached = new Map<string, string>();
  const seen = new Set<string>();
  const pending = entries.map((entry) => path.resolve(entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(staticImport)) {
      if (specifier === undefined || specifier.startsWith("node:")) continue;
      if (specifier.startsWith(".")) {
        const target = path.resolve(path.dirname(file), specifier);
        if (!existsSync(target)) throw new Error(`${file} imports ${specifier}, which is not built (${target})`);
        pending.push(target);
        continue;
      }
      const parts = specifier.split("/");
      const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
      if (!reached.has(name)) reached.set(name, path.relative(process.cwd(), file));
    }
  }
  return reached;
}
