// The queue's latency budget, written into a generated project as data (`src/queue-budget.json`). The consumer
// computes its tuning from it with chargeguard/tuning, the maths `chargeguard plan` and the BillingQueue component
// apply to the same budget in the stack config, so the deployed lock and the consumer's numbers cannot drift apart.
import { DEFAULT_STRIPE_BUDGET, tuneQueue, type FlowName, type LatencyBudget } from "../tuning/index.js";

/** Where the project's file goes, relative to the project. */
export const queueBudgetPath = "src/queue-budget.json";

/** A queue's budget as a stack config gives it (`chargeguard new consumer --stack S` reads it with infra's loader). */
export interface StackQueueBudget {
  /** The stack, e.g. "dev". */
  stack: string;
  /** The stack config file it came from; only its name is written (the project may move). */
  configFile: string;
  budget: LatencyBudget;
  /** The flow the stack tunes the queue for (its `queues[].flow`, default payment-intent); absent: not checked. */
  flow?: FlowName;
}

/** What `src/queue-budget.json` holds. */
export interface QueueBudgetFile {
  /** The queue the budget belongs to. */
  queue: string;
  /** The stack it was taken from; null: chargeguard's default Stripe budget, no stack. */
  stack: string | null;
  /** Where the numbers came from, in words. */
  source: string;
  /** How to bring this file up to date with a stack. */
  regenerate: string;
  budget: LatencyBudget;
}

/** The command that writes this queue's file from a stack (into a scratch project, to copy the file over). */
export function regenerateCommand(queue: string, stack = "<stack>"): string {
  return `in the Pulumi project: npx chargeguard new consumer <scratch-dir> --queue ${queue} --stack ${stack}, then copy <scratch-dir>/${queueBudgetPath} here`;
}

/** The file for a queue: the stack's budget, or the default Stripe budget. Throws a TuningError for a budget tuneQueue refuses. */
export function queueBudgetFile(queue: string, fromStack?: StackQueueBudget): QueueBudgetFile {
  const budget: LatencyBudget = fromStack ? fromStack.budget : { stripe: { ...DEFAULT_STRIPE_BUDGET } };
  tuneQueue(budget);
  return {
    queue,
    stack: fromStack?.stack ?? null,
    source: fromStack
      ? `${fromStack.configFile.split(/[\\/]/).pop() ?? fromStack.configFile}, queue ${queue}`
      : `chargeguard's default Stripe budget (${DEFAULT_STRIPE_BUDGET.timeoutMs} ms timeout, ${DEFAULT_STRIPE_BUDGET.maxNetworkRetries} retry): no stack was given`,
    regenerate: regenerateCommand(queue, fromStack?.stack),
    budget,
  };
}

export function renderQueueBudget(file: QueueBudgetFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}
