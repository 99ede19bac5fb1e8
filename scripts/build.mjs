// `npm run build`: the ESLint plugin and the kit compile side by side. Neither needs the other's output (the CLI's
// scan loads the plugin at run time), and tsc keeps one core busy, so on two cores the plugin's 5 s hide behind the
// kit's 18 s instead of coming first. Exits with the first failure's code, after both finished.
// tsc emits only JavaScript: the files the kit reads at run time beside its code are copied into dist/ here.
// The kit's build is incremental (tsc -b, its build information in dist/): an unchanged tree builds in about half a
// second, a fresh clone builds everything (build-info.mjs drops the information when an output has gone missing).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropBuildInfoWithoutOutputs } from "./build-info.mjs";
import { copyRunTimeFiles } from "./run-time-files.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
copyRunTimeFiles(root, join(root, "dist"));
if (dropBuildInfoWithoutOutputs(root, "tsconfig.build.json")) console.error("build: an output was missing from dist/: building everything");
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
// The plugin's own build script (its package says how it builds), through the npm that runs this one when there is.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
const builds = [
  ["eslint-plugin", npm[0], [...npm[1], "run", "build", "--silent", "--workspace", "eslint-plugin"]],
  ["chargeguard", process.execPath, [tsc, "-b", "tsconfig.build.json"]],
];

const codes = await Promise.all(
  builds.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { cwd: root, stdio: "inherit" });
        child.on("error", (error) => {
          console.error(`build: ${name}: ${error.message}`);
          resolve(1);
        });
        child.on("exit", (code, signal) => {
          if (code !== 0) console.error(`build: ${name} failed (${signal ?? `exit ${code}`})`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exit(codes.find((code) => code !== 0) ?? 0);
