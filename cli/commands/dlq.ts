import { InvalidArgumentError, type Command } from "commander";
import type { DeadLetterFilter, DeadLetterSummary } from "../../runtime/operator/index.js";
import { terminalSafe } from "../../runtime/text/terminal-safe.js";
import { secretFlagValue } from "../secret-flag.js";
import { operatorQueueRights, parseIsoDuration } from "../../tuning/index.js";

// The runtime (the Service Bus SDK and the rest) loads when a command runs, not for --help or a usage error.
const runtime = async () => {
  const [root, operator] = await Promise.all([import("../../runtime/index.js"), import("../../runtime/operator/index.js")]);
  return { ConfigurationError: root.ConfigurationError, ...operator };
};

interface DlqOptions {
  queue: string;
  connectionString?: string;
  connectionStringFile?: string;
  max?: number;
  json?: boolean;
  dryRun?: boolean;
  reason: string[];
  messageId: string[];
  since?: Date;
}

export function register(program: Command): void {
  const dlq = program.command("dlq").description("inspect and resubmit a billing queue's dead-lettered messages");
  const common = (command: Command) =>
    command
      .requiredOption("--queue <name>", "the queue whose dead-letter subqueue to read")
      .option("--connection-string <string>", "Service Bus connection string without a key (one with SharedAccessKey is refused: it would show in ps; default: env SERVICEBUS_CONNECTION_STRING, else SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential)")
      .option("--connection-string-file <path>", "read the Service Bus connection string from this file (e.g. a mounted secret)")
      .option("--max <n>", "at most this many messages (default 100)", positiveInteger)
      .option("--reason <reason>", "only dead letters with this DeadLetterReason (repeatable)", collect, [])
      .option("--message-id <id>", "only the dead letter with this messageId (repeatable)", collect, [])
      .option("--since <when>", "only messages enqueued at or after an ISO 8601 time (2026-12-01T05:00:00Z) or that long ago (PT2H, P1D)", sinceOf)
      .option("--json", "print JSON");

  common(dlq.command("peek").description("list dead-lettered messages without taking them")).action(async (options: DlqOptions) => {
    const { peekDeadLetters } = await runtime();
    const messages = await explained(options.queue, () => peekDeadLetters(connection(options)));
    if (options.json) return print(JSON.stringify(messages, null, 2), { json: true });
    if (messages.length === 0) return print(`${options.queue}/$DeadLetterQueue is empty`);
    for (const message of messages) print(describe(message));
  });

  common(
    dlq
      .command("resubmit")
      .description("send dead-lettered messages back to the queue as new messages (fresh deterministic messageId), then complete them"),
  )
    .option("--dry-run", "only list what would move, and under which id")
    .action(async (options: DlqOptions) => {
      const { ConfigurationError, resubmitDeadLetters } = await runtime();
      const report = await explained(options.queue, () => resubmitDeadLetters({ ...connection(options), dryRun: options.dryRun ?? false }));
      if (options.json) print(JSON.stringify(report, null, 2), { json: true });
      else {
        const verb = report.dryRun ? "would send" : "sent";
        const skipped = report.skipped > 0 ? `; ${report.skipped} left in place (filter)` : "";
        print(`${verb} ${report.moved.length} message(s) from ${report.queue}/$DeadLetterQueue to ${report.queue} as new messages${skipped}`);
        const [first] = report.moved;
        if (first) print(`  (${first.why})`);
        for (const message of report.moved) {
          print(`  ${describe(message)} -> ${verb} as ${message.sentAs}`);
          if (message.completeFailed) print(`    completing the dead-letter copy failed (${message.completeFailed}): it stays there; a re-run sends the same id, which the queue drops as a duplicate`);
        }
        if (report.failure) print(`stopped: sending ${report.failure.messageId ?? "(no id)"} failed: ${report.failure.error} (it stays in the dead-letter queue)`);
      }
      // A connection without Send is a configuration error (exit 2, the rights named), not a failed run (exit 1).
      if (report.failure?.code === "UnauthorizedAccess") throw new ConfigurationError(notAuthorized(options.queue));
      if (report.failure) process.exitCode = 1;
    });
}

/** Missing rights get a message naming what the operator needs instead of the SDK's bare UnauthorizedAccess. */
async function explained<T>(queue: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const [{ isServiceBusError }, { ConfigurationError }] = await Promise.all([import("@azure/service-bus"), runtime()]);
    const unauthorized =
      (isServiceBusError(error) && error.code === "UnauthorizedAccess") ||
      (error instanceof AggregateError && error.errors.some((e: unknown) => isServiceBusError(e) && e.code === "UnauthorizedAccess"));
    if (!unauthorized) throw error;
    // Missing rights are the deployment's configuration: exit 2 (cli/errors.ts), as for any configuration error.
    throw new ConfigurationError(notAuthorized(queue), { cause: error });
  }
}

function notAuthorized(queue: string): string {
  return `not authorized on queue ${queue}: dlq peek needs Listen, dlq resubmit Listen and Send (${operatorQueueRights.roles.join(" + ")} for an Entra identity; BillingQueue grants them to its operatorPrincipalIds); never Manage`;
}

function connection(options: DlqOptions) {
  const flag = { flag: "--connection-string", envName: "SERVICEBUS_CONNECTION_STRING", value: options.connectionString, file: options.connectionStringFile };
  const connectionString = secretFlagValue(flag) ?? process.env.SERVICEBUS_CONNECTION_STRING;
  const filter: DeadLetterFilter = {
    ...(options.reason.length > 0 ? { reasons: options.reason } : {}),
    ...(options.messageId.length > 0 ? { messageIds: options.messageId } : {}),
    ...(options.since === undefined ? {} : { since: options.since }),
  };
  return {
    queue: options.queue,
    ...(connectionString ? { connectionString } : {}),
    ...(options.max === undefined ? {} : { max: options.max }),
    filter,
  };
}

function describe(message: DeadLetterSummary): string {
  return `#${message.sequenceNumber} ${message.messageId ?? "(no id)"} ${message.deadLetterReason ?? "(no reason)"}: ${message.deadLetterErrorDescription ?? ""}`;
}

/**
 * Every line goes out terminal-safe (runtime/text/terminal-safe.ts): message ids, reasons and descriptions are bytes a
 * sender chose. JSON keeps its line feeds and stays JSON (the escapes are JSON's own \uXXXX).
 */
function print(line: string, options: { json?: boolean } = {}): void {
  process.stdout.write(`${terminalSafe(line, { multiline: options.json === true })}\n`);
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`must be a positive integer, got "${value}"`);
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** An ISO 8601 instant with a date, or an ISO 8601 duration meaning "that long before now". */
function sinceOf(value: string): Date {
  if (/^P/i.test(value)) {
    try {
      return new Date(Date.now() - parseIsoDuration(value));
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new InvalidArgumentError(`expected an ISO 8601 time such as 2026-12-01T05:00:00Z or a duration such as PT2H, got "${value}"`);
  return new Date(at);
}
