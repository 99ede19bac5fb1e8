// The Service Bus emulator: an AMQP 1.0 broker on rhea for the unmodified @azure/service-bus SDK.
export { startServiceBusEmulator, type ServiceBusEmulator, type ServiceBusEmulatorOptions, type TlsListener } from "./emulator.js";
export type { AccessRight, AuthorizationRuleOptions } from "./authorization.js";
export type { FaultAction, FaultOperation, FaultRule, InjectedFault, ServiceBusFaults } from "./faults.js";
export {
  queueOptionsFromTuning,
  resolveQueueOptions,
  type EmulatedQueueOptions,
  type QueueTuningSettings,
} from "./options.js";
export type { MessageSnapshot, QueueCounts, QueueSnapshot } from "./snapshot.js";
