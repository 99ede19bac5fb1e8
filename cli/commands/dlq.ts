import { InvalidArgumentError, type Command } from "commander";
import type { DeadLetterFilter, DeadLetterSummary, ResubmitReport } from "../../runtime/operator/index.js";
import { consumerVariables, terminalSafe } from "../../runtime/index.js";
import { exitCodesHelp, UsageError } from "../exit-codes.js";
import { allowed, collect, wholeNumber } from "../flag-values.js";
import { secretFlagValue } from "../secret-flag.js";
import { operatorQueueRights, parseIsoDuration } from "../../tuning/index.js";

// The runtime (the Service Bus SDK and the rest) loads when a command runs, not for --help or a usage error.
const runtime = async () => {
  const [root, operator] = await Promise.all([import("../../runtime/index.js"), import("../../runtime/operator/index.js")]);
  return { ConfigurationError: root.ConfigurationError, ...operator };
};

interface DlqOptions {
  queue?: string;
  connectionString?: string;
  connectionStringFile?: string;
  max?: number;
  json?: boolean;
  dryRun?: boolean;
  resendPermanent?: boolean;
  reason?: string[];
  messageId?: string[];
  since?: Date;
}

export function register(program: Command): void {
  const dlq = program.command("dlq").description("inspect and resubmit a billing queue's dead-lettered messages");
  const common = (command: Command) =>
    command
      .option("--queue <name>", "the queue whose dead-letter subqueue to read (default: env SERVICEBUS_QUEUE, which sandbox.env sets)")
      .option("--connection-string <string>", "Service Bus connection string without a key (one with SharedAccessKey is refused: it would show in ps; default: env SERVICEBUS_CONNECTION_STRING, else SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential)")
      .option("--connection-string-file <path>", "read the Service Bus connection string from this file (e.g. a mounted secret)")
      .option("--max <n>", "at most this many messages (default 100)", wholeNumber(1))
      .option("--reason <reason>", "only dead letters with this DeadLetterReason (repeatable)", collect)
      .option("--message-id <id>", "only the dead letter with this messageId (repeatable)", collect)
      .option("--since <when>", "only messages enqueued at or after an ISO 8601 time (2026-12-01T05:00:00Z) or that long ago (PT2H, P1D)", sinceOf)
      .option("--json", "print JSON")
      .addHelpText(
        "after",
        exitCodesHelp({ 0: "done", 1: "a resubmission stopped part way (what was sent is listed; the rest stays dead-lettered)", 2: "a malformed connection string, missing rights on the queue, a queue that does not exist" }),
      );

  common(dlq.command("peek").description("list dead-lettered messages without taking them")).action(async (options: DlqOptions) => {
    const { peekDeadLetters } = await runtime();
    const target = await connection(options);
    const messages = await explained(target, () => peekDeadLetters(target));
    if (options.json) return print(JSON.stringify(messages, null, 2), { json: true });
    if (messages.length === 0) return print(`${target.queue}/$DeadLetterQueue is empty`);
    for (const message of messages) print(describe(message));
  });

  common(
    dlq
      .command("resubmit")
      .description("send dead-lettered messages back to the queue as new messages (fresh deterministic messageId), then complete them"),
  )
    .option("--dry-run", "only list what would move, and under which id, and what would be refused")
    .option(
      "--resend-permanent",
      `also resend dead letters whose reason cannot succeed when resent (${Object.keys(permanentReasons).join(", ")}): without it they stay in place, named`,
    )
    .action(async (options: DlqOptions) => {
      const { ConfigurationError, resubmitDeadLetters } = await runtime();
      const target = await connection(options);
      const report = await explained(target, () => resubmitDeadLetters({ ...target, dryRun: options.dryRun ?? false, resendPermanent: options.resendPermanent ?? false }));
      if (options.json) print(JSON.stringify(report, null, 2), { json: true });
      else printReport(report);
      // A connection without Send is a configuration error (exit 2, the rights named), not a failed run (exit 1).
      if (report.failure?.code === "UnauthorizedAccess") throw new ConfigurationError(notAuthorized(target.queue));
      if (report.failure) process.exitCode = 1;
    });
}

/** The permanent reasons, named in --help without loading the runtime (test/cli/dlq.e2e.test.ts proves them equal). */
export const permanentReasons = { BillingRecordMismatch: true, InvalidEvent: true } as const;

function printReport(report: ResubmitReport): void {
  const verb = report.dryRun ? "would send" : "sent";
  const left = [
    report.refused.length > 0 ? `${report.refused.length} refused (cannot succeed when resent)` : "",
    report.skipped > 0 ? `${report.skipped} left in place (filter)` : "",
    report.returned > 0 ? `${report.returned} sent by this run and dead-lettered again, not read back` : "",
  ].filter(Boolean);
  print(`${verb} ${report.moved.length} message(s) from ${report.queue}/$DeadLetterQueue to ${report.queue} as new messages${left.map((part) => `; ${part}`).join("")}`);
  const reasons = Object.entries(report.byReason).map(([reason, count]) => `${reason}: ${count.moved} ${verb}${count.refused > 0 ? `, ${count.refused} refused` : ""}`);
  if (reasons.length > 0) print(`  by reason: ${reasons.join("; ")}`);
  const [first] = report.moved;
  if (first) print(`  (${first.why})`);
  for (const message of report.moved) {
    print(`  ${describe(message)} -> ${verb} as ${message.sentAs}`);
    if (message.completeFailed) print(`    completing the dead-letter copy failed (${message.completeFailed}): it stays there; a re-run sends the same id, which the queue drops as a duplicate`);
  }
  for (const message of report.refused) print(`  ${describe(message)} -> ${report.dryRun ? "would be " : ""}refused: ${message.why} (--resend-permanent to send it anyway)`);
  if (report.failure) print(`stopped: sending ${report.failure.messageId ?? "(no id)"} failed: ${report.failure.error} (it stays in the dead-letter queue)`);
}

/**
 * Missing rights get a message naming what the operator needs instead of the SDK's bare UnauthorizedAccess; a wrong
 * key (the same code) is named as a wrong key, since granting rights would not fix it.
 */
async function explained<T>(target: { queue: string; connectionString?: string }, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const { ConfigurationError, serviceBusErrorIn, serviceBusRefusal, wrongKeyMessage } = await runtime();
    // A missing queue is the operator's --queue (or SERVICEBUS_QUEUE), named in one line instead of the SDK's
    // "'nope/$DeadLetterQueue/$management' could not be found".
    if (serviceBusErrorIn(error)?.code === "MessagingEntityNotFound") {
      throw new ConfigurationError(`queue ${target.queue} does not exist on ${endpointOf(target.connectionString)}: check --queue (or env SERVICEBUS_QUEUE)`, { cause: error });
    }
    const entityPath = /EntityPath=([^;]+)/i.exec(target.connectionString ?? "")?.[1];
    if (entityPath !== undefined && entityPath !== target.queue && error instanceof Error && /does not match the EntityPath/.test(error.message)) {
      throw new ConfigurationError(`the connection string is scoped to queue ${entityPath} (its EntityPath), not ${target.queue}: check --queue, or use that queue's connection string`, { cause: error });
    }
    const refusal = serviceBusRefusal(error);
    if (!refusal) throw error;
    // A refused key and missing rights are the deployment's configuration: exit 2 (cli/exit-codes.ts).
    if (refusal.kind === "key") {
      const namespace = consumerVariables().SERVICEBUS_FULLY_QUALIFIED_NAMESPACE ?? "the namespace";
      throw new ConfigurationError(wrongKeyMessage(target.connectionString, namespace, refusal.detail), { cause: error });
    }
    throw new ConfigurationError(notAuthorized(target.queue), { cause: error });
  }
}

/** The namespace a connection string points at, without its key; else the environment's namespace. */
function endpointOf(connectionString: string | undefined): string {
  const endpoint = /Endpoint=([^;]+)/i.exec(connectionString ?? "")?.[1];
  return endpoint ?? consumerVariables().SERVICEBUS_FULLY_QUALIFIED_NAMESPACE ?? "the namespace";
}

function notAuthorized(queue: string): string {
  return `not authorized on queue ${queue}: dlq peek needs Listen, dlq resubmit Listen and Send (${operatorQueueRights.roles.join(" + ")} for an Entra identity; BillingQueue grants them to its operatorPrincipalIds); never Manage`;
}

/** A connection string that cannot be parsed is a usage error (exit 2) naming where it came from, before any connection. */
async function checkedConnectionString(options: DlqOptions): Promise<string | undefined> {
  const flag = { flag: "--connection-string", envName: "SERVICEBUS_CONNECTION_STRING", value: options.connectionString, file: options.connectionStringFile };
  const given = secretFlagValue(flag);
  const connectionString = given ?? consumerVariables().SERVICEBUS_CONNECTION_STRING;
  if (connectionString === undefined) return undefined;
  const { parseServiceBusConnectionString } = await import("@azure/service-bus");
  let endpoint: string | undefined;
  try {
    endpoint = parseServiceBusConnectionString(connectionString).endpoint;
  } catch (error) {
    endpoint = undefined;
    if (!(error instanceof Error)) throw error;
  }
  if (!endpoint?.includes("://")) {
    const source = given === undefined ? "env SERVICEBUS_CONNECTION_STRING" : options.connectionStringFile ? "--connection-string-file" : "--connection-string";
    throw new UsageError(`${source} is not a Service Bus connection string; allowed: Endpoint=sb://<namespace>/;SharedAccessKeyName=<rule>;... as the portal or chargeguard sandbox prints it`);
  }
  return connectionString;
}

/** The queue: --queue, else env SERVICEBUS_QUEUE (which sandbox.env sets), else a usage error. */
function queueOf(options: DlqOptions): string {
  const queue = options.queue ?? consumerVariables().SERVICEBUS_QUEUE;
  if (!queue) throw new UsageError("--queue is required (or env SERVICEBUS_QUEUE, which sandbox.env sets)");
  return queue;
}

async function connection(options: DlqOptions) {
  const connectionString = await checkedConnectionString(options);
  const filter: DeadLetterFilter = {
    ...(options.reason ? { reasons: options.reason } : {}),
    ...(options.messageId ? { messageIds: options.messageId } : {}),
    ...(options.since === undefined ? {} : { since: options.since }),
  };
  return {
    queue: queueOf(options),
    ...(connectionString ? { connectionString } : {}),
    ...(options.max === undefined ? {} : { max: options.max }),
    filter,
  };
}

function describe(message: DeadLetterSummary): string {
  return `#${message.sequenceNumber} ${message.messageId ?? "(no id)"} ${message.deadLetterReason ?? "(no reason)"}: ${message.deadLetterErrorDescription ?? ""}`;
}

/**
 * Every line goes out terminal-safe (runtime/core/text/terminal-safe.ts): message ids, reasons and descriptions are bytes a
 * sender chose. JSON keeps its line feeds and stays JSON (the escapes are JSON's own \uXXXX).
 */
function print(line: string, options: { json?: boolean } = {}): void {
  process.stdout.write(`${terminalSafe(line, { multiline: options.json === true })}\n`);
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
  if (Number.isNaN(at)) throw allowed("an ISO 8601 time such as 2026-12-01T05:00:00Z or a duration such as PT2H");
  return new Date(at);
}
