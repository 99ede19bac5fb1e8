// `# expect: <rule>` / `// expect: <rule>` (or `expect-next-line:`) markers of every file under a fixture directory (recursively): the
// findings a scan of it must report, and nothing else.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface ExpectedFinding {
  ruleId: string;
  file: string;
  line: number;
}

export function expectedFindings(root: string, directory: string): ExpectedFinding[] {
  return readdirSync(path.join(root, directory), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(py|java|ya?ml|properties)$/.test(name))
    .sort()
    .flatMap((name) =>
      readFileSync(path.join(root, directory, name), "utf8")
        .split("\n")
        .flatMap((text, index) => {
          // `expect: <rule>` marks its own line; `expect-next-line: <rule>` the next one (formats without end-of-line comments).
          const match = /(?:#|\/\/) expect(-next-line)?: ([a-z-]+)/.exec(text);
          const file = `${directory}/${name.split(path.sep).join("/")}`;
          return match ? [{ ruleId: `chargeguard/${match[2]}`, file, line: index + (match[1] ? 2 : 1) }] : [];
        }),
    );
}
