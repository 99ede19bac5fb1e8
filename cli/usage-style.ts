// One error style for the whole CLI: a usage mistake prints ONE line, `chargeguard <command>: <flag> <problem>;
// allowed: ...`, and exits 2; the help only on --help. Commander's own messages ("error: option '--events <n>'
// argument '-5' is invalid. ...", then the whole help) are rewritten here into that line.
import { type Command } from "commander";

/** The command's path as typed: `chargeguard dlq peek`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

function longFlags(command: Command): string {
  const flags = command.options.map((option) => option.long ?? option.short).filter((flag): flag is string => flag !== undefined);
  return [...flags, "--help"].join(", ");
}

function flagName(flags: string): string {
  // "-s, --stack <name>" -> "--stack"
  return flags.split(/[ ,|]+/).find((part) => part.startsWith("--")) ?? flags.split(/[ ,|]+/)[0] ?? flags;
}

/** Commander's message (code and text) as the one line: `<flag> <problem>; allowed: ...`. */
export function usageProblem(command: Command, code: string, message: string): string {
  const text = message.replace(/^error: /, "").trim();
  let match: RegExpExecArray | null;
  if ((match = /^option '([^']+)' argument '(.*)' is invalid\.\s*(.*)$/s.exec(text))) {
    const [, flags = "", value = "", reason = ""] = match;
    const why = reason.replace(/^Allowed choices are (.*)\.$/, "allowed: $1");
    return `${flagName(flags)} ${JSON.stringify(value)} is invalid${why ? (why.startsWith("allowed:") ? `; ${why}` : `: ${why}`) : ""}`;
  }
  if ((match = /^required option '([^']+)' not specified$/.exec(text))) return `${match[1]} is required (see --help)`;
  if ((match = /^option '([^']+)' argument missing$/.exec(text))) return `${match[1]} needs a value`;
  if ((match = /^missing required argument '([^']+)'$/.exec(text))) {
    const usage = command.usage();
    return `<${match[1]}> is missing; usage: ${commandPath(command)} ${usage}`;
  }
  if ((match = /^unknown option '([^']+)'(.*)$/s.exec(text))) {
    const hint = /Did you mean (\S+)\?/.exec(match[2] ?? "")?.[1];
    return `${match[1]} is not an option${hint ? ` (did you mean ${hint}?)` : ""}; allowed: ${longFlags(command)}`;
  }
  if ((match = /^unknown command '([^']+)'/.exec(text))) {
    return `${match[1]} is not a command; allowed: ${command.commands.map((sub) => sub.name()).join(", ")}`;
  }
  if (code === "commander.excessArguments") return `${text.replace(/\.$/, "")}; usage: ${commandPath(command)} ${command.usage()}`;
  return text;
}

/**
 * Every command (subcommands included) writes usage errors as the one line and never the help after it. A command
 * with subcommands and no action (`chargeguard dlq`) prints its help and exits 2, as commander does, to stderr.
 */
export function applyUsageStyle(command: Command): void {
  command.showHelpAfterError(false);
  command.configureOutput({
    outputError: (message, write) => {
      const code = /error: (option '[^']+' argument '.*' is invalid)/s.test(message) ? "commander.invalidArgument" : "";
      write(`${commandPath(command)}: ${usageProblem(command, code, message)}\n`);
    },
  });
  for (const sub of command.commands) applyUsageStyle(sub);
}
