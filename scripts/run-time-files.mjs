// The files the kit reads at run time beside its compiled code (the guard's numbered migrations), which tsc does not
// emit: copied into a build's output by `npm run build` and by the tests that compile the CLI on their own
// (test/support/built-cli.ts), so every build finds them where the code looks.
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Folders, relative to the repository, copied as they are to the same place under the output directory. */
export const runTimeFolders = ["runtime/guard/sql"];

/** Copies each folder into `outDir`, the old copy removed first so a renamed or deleted file does not linger there. */
export function copyRunTimeFiles(root, outDir) {
  for (const folder of runTimeFolders) {
    rmSync(join(outDir, folder), { recursive: true, force: true });
    cpSync(join(root, folder), join(outDir, folder), { recursive: true });
  }
}
