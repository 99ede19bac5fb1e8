// `--vendor <checkout>`: the chargeguard packages packed into the new project (vendor/*.tgz, `file:` dependencies),
// so `npm ci` and `docker build` work before or without a registry that serves them. Their own dependencies still come
// from the npm registry (or its cache, or a private mirror such as Azure Artifacts).
import { execFile } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface VendoredPackages {
  /** `file:` specs relative to the project, e.g. "file:vendor/chargeguard-0.1.0.tgz". */
  chargeguard: string;
  eslintPlugin: string;
}

/**
 * eslint-plugin-chargeguard for `root`: its eslint-plugin/ in a checkout; beside it in node_modules for an installed
 * chargeguard (an unpublished pack, installed with the plugin's pack, as a vendored project has them).
 */
export function eslintPluginOf(root: string): string | undefined {
  const inCheckout = path.join(root, "eslint-plugin");
  if (existsSync(path.join(inCheckout, "package.json"))) return inCheckout;
  try {
    return path.dirname(createRequire(path.join(root, "package.json")).resolve("eslint-plugin-chargeguard/package.json"));
  } catch {
    return undefined;
  }
}

/** What is wrong with `checkout` as a source to pack, or undefined. */
export function vendorProblem(checkout: string): string | undefined {
  const root = path.resolve(checkout);
  const manifest = path.join(root, "package.json");
  if (!existsSync(manifest)) return `--vendor ${checkout}: no package.json at ${root}`;
  const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
  if (name !== "chargeguard") return `--vendor ${checkout}: ${root} is "${String(name)}", not a chargeguard checkout`;
  const plugin = eslintPluginOf(root);
  if (plugin === undefined) return `--vendor ${checkout}: no eslint-plugin-chargeguard in ${root}/eslint-plugin or beside it: give a chargeguard checkout with --vendor <checkout>`;
  for (const built of [path.join(root, "dist/cli/index.js"), path.join(root, "dist/runtime/index.js"), path.join(plugin, "dist/index.js")]) {
    if (!existsSync(built)) return `--vendor ${checkout}: ${path.relative(root, built)} is missing: run \`npm run build\` in ${root} first`;
  }
  return undefined;
}

/** Packs chargeguard and eslint-plugin-chargeguard from `checkout` (vendorProblem: none) into `<project>/vendor`. */
export async function packInto(checkout: string, project: string): Promise<VendoredPackages> {
  const vendor = path.join(project, "vendor");
  await mkdir(vendor, { recursive: true });
  const pack = async (directory: string): Promise<string> => {
    // --ignore-scripts: the checkout is already built (vendorProblem), and packing must not rebuild or run hooks.
    const [program, ...npmArgs] = npmCommand();
    const { stdout } = await run(program, [...npmArgs, "pack", "--json", "--ignore-scripts", "--pack-destination", vendor], {
      cwd: directory,
      maxBuffer: 32 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error(`npm pack in ${directory} reported nothing`);
    return `file:vendor/${path.basename(packed.filename)}`;
  };
  const root = path.resolve(checkout);
  return { chargeguard: await pack(root), eslintPlugin: await pack(eslintPluginOf(root) ?? path.join(root, "eslint-plugin")) };
}

/**
 * npm without a shell on every platform: node running npm's own npm-cli.js, else the `npm` executable. Windows' npm
 * is a .cmd, which Node runs only through cmd.exe, and a shell would read the pack destination (the project's path:
 * spaces, "&", "%") as commands: never through one. npm-cli.js is looked for beside node as Node's installers put it
 * (<dir>/node_modules/npm on Windows, <prefix>/lib/node_modules/npm elsewhere), then through the npm on PATH (a node
 * that came without npm, such as the registry's node binaries, runs the machine's npm).
 */
export function npmCommand(execPath = process.execPath, platform: NodeJS.Platform = process.platform, searchPath = process.env.PATH ?? ""): [string, ...string[]] {
  const dir = platform === "win32" ? path.win32.dirname(execPath) : path.dirname(execPath);
  const besideNode = [path.join(dir, "node_modules/npm/bin/npm-cli.js"), path.join(dir, "../lib/node_modules/npm/bin/npm-cli.js")];
  const cli = besideNode.find((candidate) => existsSync(candidate)) ?? npmCliOnPath(searchPath);
  if (cli !== undefined) return [execPath, cli];
  if (platform === "win32") throw new Error(`npm's npm-cli.js is not beside ${execPath} nor on PATH: run with Node's own npm installed, or pack with --no-vendor`);
  return ["npm"];
}

/** npm-cli.js of the first npm on PATH: Windows' layout beside npm.cmd, or what a POSIX `npm` link points at. */
function npmCliOnPath(searchPath: string): string | undefined {
  for (const entry of searchPath.split(path.delimiter).filter(Boolean)) {
    const windowsLayout = path.join(entry, "node_modules/npm/bin/npm-cli.js");
    if (existsSync(windowsLayout)) return windowsLayout;
    const link = path.join(entry, "npm");
    if (!existsSync(link)) continue;
    const target = realpathSync(link);
    if (target.endsWith(`${path.sep}npm-cli.js`)) return target;
  }
  return undefined;
}
