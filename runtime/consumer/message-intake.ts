// Taking messages: the Service Bus subscription that runs the billing handler per message, and its pause while Stripe
// refuses the key (configuration-fault.ts). The handler never throws; a message delivered as intake pauses goes back
// to the queue untouched.
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import type { BillingHandler, DeliveryPorts } from "../handler/billing-handler.js";
import { configurationFaultGate, stripeKeyProbe } from "../handler/configuration-fault.js";
import { IntakePause } from "./intake-pause.js";
import { gateSettlements } from "./settlement-gate.js";
import { safeDeadLetters } from "./safe-dead-letter.js";
import { receiverErrorLog } from "./servicebus-preflight.js";
import type { BillingTelemetry, DeliveryParts } from "../telemetry/billing-telemetry.js";
import type { AnyConsumerOptions, ResolvedConsumerSettings } from "./consumer-settings.js";
import { bounded } from "./bounded.js";
import { keepAsWait } from "../handler/pause-wait.js";
import { calendarBilling } from "./billed-keys.js";
import { keyProbeRequest } from "../flows/key-probe.js";
import type { InFlight } from "./in-flight.js";
import type { ReceiveHeartbeat } from "./receive-heartbeat.js";
import type { StripeClients } from "./stripe-clients.js";

export interface MessageIntake {
  /** Stops taking messages for good (the consumer is closing): in-flight ones finish. */
  stop(): Promise<void>;
  /** Pauses and resumes intake, one reason at a time (a refused key, a breaker per dependency). */
  pause: IntakePause;
}

export interface IntakeParts {
  options: AnyConsumerOptions;
  settings: ResolvedConsumerSettings;
  log: (line: string) => void;
  receiver: ServiceBusReceiver;
  sender: ServiceBusSender;
  handler: BillingHandler;
  /** The handler's ports as they are, for the telemetry to instrument per delivery. */
  ports: DeliveryPorts;
  telemetry: BillingTelemetry;
  stripe: StripeClients;
  inFlight: InFlight;
  /** Told of every turn of the receive loop; it probes the broker while the queue is idle. */
  heartbeat: ReceiveHeartbeat;
  isStopped: () => boolean;
}

export function startMessageIntake(parts: IntakeParts): MessageIntake {
  const { options, log, handler, telemetry, inFlight } = parts;
  // Every settlement of this receiver, the pause's abandons included, through the gate: one outcome per AMQP flush.
  const receiver = gateSettlements(safeDeadLetters(parts.receiver));
  const queue = options.serviceBus.queueName;
  const errorLog = receiverErrorLog(log);
  // Stripe refusing the key pauses intake instead of dead-lettering the backlog (configuration-fault.ts).
  const pause = new IntakePause({
    pause: () => bounded(subscription.close(), 5_000),
    resume: () => {
      if (!parts.isStopped()) subscription = subscribe();
    },
  });
  const faults = configurationFaultGate({
    log,
    pause: () => pause.hold("stripe-key"),
    resume: () => pause.release("stripe-key"),
    // With the key billing uses (the vault's period key, even beside a plain STRIPE_API_KEY) and a request the
    // flow's restricted key may make: either wrong, and the probe was refused for ever.
    probe: stripeKeyProbe(
      async () => parts.stripe.stripeFor(await parts.stripe.keys.billedKey(calendarBilling(options))),
      keyProbeRequest(parts.settings.flow.name),
    ),
    // A message Stripe refused the key for waits on the queue as a scheduled copy: no delivery spent (pause-wait.ts).
    keep: async (message, detail) => {
      await keepAsWait(log, message, "Stripe refused the key", detail, receiver, parts.sender);
    },
    ...(options.onConfigurationFault === undefined ? {} : { onFault: options.onConfigurationFault }),
    ...options.configurationFaultProbe,
  });
  const delivery: DeliveryParts = { settler: faults.receiver(receiver), scheduler: parts.sender, ports: parts.ports };
  const processMessage = async (message: ServiceBusReceivedMessage): Promise<void> => {
    if (pause.paused) {
      // Delivered as intake stopped: back to the queue untouched, as a wait (an abandon spends a delivery each time).
      await keepAsWait(log, message, "intake paused", `delivered while intake paused (${pause.reasons.join(", ")})`, receiver, parts.sender);
      return;
    }
    parts.heartbeat.turned();
    inFlight.add(message);
    try {
      // Telemetry off hands `delivery` back as it is: the handler then runs on the ports it was built with.
      await telemetry.processMessage(message, queue, delivery, (own) =>
        handler(message, own.settler, own.scheduler, own === delivery ? undefined : own.ports),
      );
    } catch (error) {
      // The handler does not throw; if it ever did, swallowing beats the SDK's abandon.
      log(`billing handler failed unexpectedly: ${String(error)}`);
    } finally {
      inFlight.delete(message);
      parts.heartbeat.turned();
    }
  };
  const subscribe = () =>
    receiver.subscribe(
      {
        processMessage,
        processError: async ({ error, errorSource }) => {
          if (errorSource === "renewLock") telemetry.lockRenewalFailed(queue);
          errorLog(error, errorSource);
        },
      },
      { autoCompleteMessages: false, maxConcurrentCalls: parts.settings.maxConcurrentCalls },
    );
  let subscription = subscribe();
  // The raw receiver: a peek is no settlement, it needs no gate.
  const stopProbing = parts.heartbeat.probe(parts.receiver, () => (parts.isStopped() ? "stopped" : pause.paused ? "paused" : undefined));
  return {
    pause,
    async stop() {
      stopProbing();
      faults.close();
      await bounded(subscription.close(), 5_000);
    },
  };
}
