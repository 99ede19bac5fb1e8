// `npm run build` keeps tsc's incremental build information in dist/.tsbuildinfo, so a build over an unchanged tree
// (the second `npm start`) takes about half a second instead of 15-18 s. tsc -b trusts that file alone: an output
// deleted since (a dist/ folder removed by hand, a test's clean-up) would never be written again. So before each
// build every source file's JavaScript is looked for, and the information is dropped when one is missing: that build
// is a full one.
import { existsSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** Removes the project's build information when an output it vouches for is missing; says whether it did. */
export function dropBuildInfoWithoutOutputs(root, project) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, project), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const { outDir, rootDir, tsBuildInfoFile } = parsed?.options ?? {};
  if (!parsed || !outDir || !rootDir || !tsBuildInfoFile || !existsSync(tsBuildInfoFile)) return false;
  const missing = parsed.fileNames
    .filter((file) => /\.[cm]?tsx?$/.test(file) && !/\.d\.[cm]?ts$/.test(file))
    .map((file) => join(outDir, relative(rootDir, file)).replace(/\.([cm]?)tsx?$/, ".$1js"))
    .find((output) => !existsSync(output));
  if (missing === undefined) return false;
  rmSync(tsBuildInfoFile, { force: true });
  return true;
}
