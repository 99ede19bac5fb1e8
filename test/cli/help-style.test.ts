// One style for the help: every command's description (subcommands included) starts in lower case, as commander's
// own lines do ("display help for command"), and ends without a full stop (issue 36, item 9).
import { Command } from "commander";
import { describe, expect, it } from "vitest";

const modules: (() => Promise<{ register(program: Command): void }>)[] = [
  () => import("../../cli/commands/plan.js"),
  () => import("../../cli/commands/new.js"),
  () => import("../../cli/commands/sandbox.js"),
  () => import("../../cli/commands/prove.js"),
  () => import("../../cli/commands/dlq.js"),
  () => import("../../cli/commands/reconcile.js"),
  () => import("../../cli/commands/scan.js"),
  () => import("../../cli/commands/audit.js"),
];

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

describe("the CLI's help style", () => {
  it("every command's description starts in lower case and has no trailing full stop", async () => {
    const program = new Command("chargeguard");
    for (const load of modules) (await load()).register(program);
    const commands = everyCommand(program).slice(1);
    expect(commands.map((command) => command.name())).toEqual(expect.arrayContaining(["plan", "peek", "resubmit", "send", "audit"]));
    const offending = commands
      .map((command) => ({ name: command.name(), text: command.description() }))
      .filter(({ text }) => !/^[a-z`]/.test(text) || /\.$/.test(text.split("\n")[0] ?? ""));
    expect(offending).toEqual([]);
  });
});
