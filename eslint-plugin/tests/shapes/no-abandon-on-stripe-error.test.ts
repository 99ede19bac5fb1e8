// Real service shapes: the charge sits behind an injected service, a class method, an object method or an arrow.
import ruleWithSuggestions from "../../src/rules/no-abandon-on-stripe-error.js";
import { detectionOnly } from "../detection-only.js";
import { inBothModes } from "./both-modes.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const abandon = (charge: string) => ({ messageId: "abandonAfterCharge" as const, data: { charge } });

const imports = `
import Stripe from "stripe";
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
`;

/** A billing service that charges through its own Stripe client (a provider, in NestJS terms). */
const billingService = `
class BillingService {
  constructor(private readonly stripe: Stripe) {}
  async charge(customer: string, amount: number, key: string) {
    return this.stripe.paymentIntents.create({ customer, amount, currency: "usd", confirm: true }, { idempotencyKey: key });
  }
  async lookup(id: string) {
    return this.stripe.paymentIntents.retrieve(id);
  }
}
`;

inBothModes("no-abandon-on-stripe-error: real shapes", rule, {
  valid: [
    {
      name: "the injected service's method only reads from Stripe",
      code: `${imports}${billingService}
export class Consumer {
  constructor(private readonly billing: BillingService, private readonly receiver: ServiceBusReceiver) {}
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.billing.lookup(message.body.intent);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
}`,
    },
  ],
  invalid: [
    {
      name: "a method of an injected service (constructor parameter property)",
      code: `${imports}${billingService}
export class Consumer {
  constructor(private readonly billing: BillingService, private readonly receiver: ServiceBusReceiver) {}
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.billing.charge(message.body.customer, message.body.amount, message.body.key);
      await this.receiver.completeMessage(message);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("this.billing.charge()")],
    },
    {
      name: "a NestJS-style provider injected by token into a decorated consumer",
      code: `${imports}
declare function Injectable(): ClassDecorator;
declare function Inject(token: string): ParameterDecorator;
@Injectable()
export class PaymentsProvider {
  constructor(@Inject("STRIPE") private readonly client: Stripe) {}
  refund(intent: string, key: string) {
    return this.client.refunds.create({ payment_intent: intent }, { idempotencyKey: key });
  }
}
@Injectable()
export class RefundConsumer {
  private receiver!: ServiceBusReceiver;
  constructor(private readonly payments: PaymentsProvider) {}
  async onMessage(message: ServiceBusReceivedMessage) {
    try {
      await this.payments.refund(message.body.intent, message.body.key);
    } catch (error) {
      await this.receiver.abandonMessage(message, { reason: String(error) });
    }
  }
}`,
      errors: [abandon("this.payments.refund()")],
    },
    {
      name: "a service injected by its interface, implemented by one class of the file",
      code: `${imports}
interface Billing { charge(amount: number, key: string): Promise<unknown> }
class StripeBilling implements Billing {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
  charge(amount: number, key: string) {
    return this.stripe.charges.create({ amount, currency: "usd" }, { idempotencyKey: key });
  }
}
export class Consumer {
  constructor(private readonly billing: Billing, private readonly receiver: ServiceBusReceiver) {}
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.billing.charge(message.body.amount, message.body.key);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
  static create(receiver: ServiceBusReceiver) { return new Consumer(new StripeBilling(), receiver); }
}`,
      errors: [abandon("this.billing.charge()")],
    },
    {
      name: "a service instance made in the file, called from a function",
      code: `${imports}${billingService}
const billing = new BillingService(new Stripe(process.env.STRIPE_SECRET_KEY!));
export async function handle(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage) {
  try {
    await billing.charge(message.body.customer, message.body.amount, message.body.key);
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
      errors: [abandon("billing.charge()")],
    },
    {
      name: "a parameter typed with the service class",
      code: `${imports}${billingService}
export async function handle(billing: BillingService, receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage) {
  try {
    await billing.charge(message.body.customer, message.body.amount, message.body.key);
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
      errors: [abandon("billing.charge()")],
    },
    {
      name: "an object of methods",
      code: `${imports}
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const payments = {
  async charge(amount: number, key: string) {
    return stripe.charges.create({ amount, currency: "usd" }, { idempotencyKey: key });
  },
};
export async function handle(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage) {
  try {
    await payments.charge(message.body.amount, message.body.key);
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
      errors: [abandon("payments.charge()")],
    },
    {
      name: "an arrow-function field of the class, reached through this",
      code: `${imports}
export class Consumer {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
  constructor(private readonly receiver: ServiceBusReceiver) {}
  private readonly bill = async (message: ServiceBusReceivedMessage) =>
    this.stripe.transfers.create({ amount: message.body.amount, currency: "usd", destination: message.body.account }, { idempotencyKey: message.body.key });
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.bill(message);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("this.bill()")],
    },
    {
      name: "a method inherited from a same-file base class",
      code: `${imports}
abstract class StripeBiller {
  protected readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
  protected charge(amount: number, key: string) {
    return this.stripe.paymentIntents.create({ amount, currency: "usd", confirm: true }, { idempotencyKey: key });
  }
}
export class Consumer extends StripeBiller {
  constructor(private readonly receiver: ServiceBusReceiver) { super(); }
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.charge(message.body.amount, message.body.key);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("this.charge()")],
    },
    {
      name: "a service assigned in the constructor",
      code: `${imports}${billingService}
export class Consumer {
  private readonly billing: unknown;
  constructor(private readonly receiver: ServiceBusReceiver, stripe: Stripe) {
    this.billing = new BillingService(stripe);
  }
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await (this.billing as BillingService).charge(message.body.customer, message.body.amount, message.body.key);
    } catch {
      await this.receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("(this.billingasBillingService).charge()")],
    },
  ],
});
