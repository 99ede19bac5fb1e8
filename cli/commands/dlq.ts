import { InvalidArgumentError, type Command } from "commander";
import { peekDeadLetters, resubmitDeadLetters, type DeadLetterSummary } from "../../runtime/index.js";

interface DlqOptions {
  queue: string;
  connectionString?: string;
  max?: number;
  json?: boolean;
  dryRun?: boolean;
  deriveMessageId?: boolean;
}

export function register(program: Command): void {
  const dlq = program.command("dlq").description("inspect and resubmit a billing queue's dead-lettered messages");
  const common = (command: Command) =>
    command
      .requiredOption("--queue <name>", "the queue whose dead-letter subqueue to read")
      .option("--connection-string <string>", "Service Bus connection string (default: env SERVICEBUS_CONNECTION_STRING, else SERVICEBUS_FULLY_QUALIFIED_NAMESPACE with DefaultAzureCredential)")
      .option("--max <n>", "at most this many messages (default 100)", positiveInteger)
      .option("--json", "print JSON");

  common(dlq.command("peek").description("list dead-lettered messages without taking them")).action(async (options: DlqOptions) => {
    const messages = await peekDeadLetters(connection(options));
    if (options.json) return print(JSON.stringify(messages, null, 2));
    if (messages.length === 0) return print(`${options.queue}/$DeadLetterQueue is empty`);
    for (const message of messages) print(describe(message));
  });

  common(dlq.command("resubmit").description("send dead-lettered messages back to the queue, keeping their messageId"))
    .option("--dry-run", "only list what would move")
    .option(
      "--derive-message-id",
      "send as <messageId>:resubmit:<sequence> instead of the original id (for queues with duplicate detection, whose window would drop a kept id)",
    )
    .action(async (options: DlqOptions) => {
      const report = await resubmitDeadLetters({
        ...connection(options),
        dryRun: options.dryRun ?? false,
        messageId: options.deriveMessageId ? "derive" : "keep",
      });
      if (options.json) print(JSON.stringify(report, null, 2));
      else {
        const verb = report.dryRun ? "would move" : "moved";
        print(`${verb} ${report.moved.length} message(s) from ${report.queue}/$DeadLetterQueue to ${report.queue}`);
        for (const message of report.moved) print(`  ${describe(message)}${message.sentAs === undefined || message.sentAs === message.messageId ? "" : ` (sent as ${message.sentAs})`}`);
        if (report.failure) print(`stopped: sending ${report.failure.messageId ?? "(no id)"} failed: ${report.failure.error}`);
      }
      if (report.failure) process.exitCode = 1;
    });
}

function connection(options: DlqOptions) {
  const connectionString = options.connectionString ?? process.env.SERVICEBUS_CONNECTION_STRING;
  return { queue: options.queue, ...(connectionString ? { connectionString } : {}), ...(options.max === undefined ? {} : { max: options.max }) };
}

function describe(message: DeadLetterSummary): string {
  return `#${message.sequenceNumber} ${message.messageId ?? "(no id)"} ${message.deadLetterReason ?? "(no reason)"}: ${message.deadLetterErrorDescription ?? ""}`;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`must be a positive integer, got "${value}"`);
  return n;
}
