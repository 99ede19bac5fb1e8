import type { Delivery, Sender } from "rhea";
import type { Consumer } from "./entity.js";
import type { Lock, MessageRecord } from "./message-record.js";
import { deliveryTag, encodeForDelivery, recordState } from "./wire.js";

/** rhea sender internals the emulator relies on (drain handshake, credit accounting, attach fields). */
export interface SenderInternals {
  credit: number;
  delivery_count: number;
  _draining: boolean;
  _drained: boolean;
  _get_drain(): boolean;
  set_drained(drained: boolean): void;
  session: { outgoing: { deliveries: { available(): number } } };
  connection: { _register(): void };
  local: { attach: Record<string, unknown> };
  state: { local_open: boolean; open_requests: number };
}

/** A receive link of an entity: credit accounting, delivery, and the drain answer `receiveMessages()` waits for. */
export class LinkConsumer implements Consumer {
  #sent = 0;
  #tag = 0;
  readonly #internals: SenderInternals;

  constructor(
    readonly sender: Sender,
    readonly peekLock: boolean,
    private readonly track: (delivery: Delivery, lock: Lock) => void,
  ) {
    const internals = sender as unknown as SenderInternals;
    this.#internals = internals;
    // rhea answers a drain only while credit remains; the SDK also waits for it when credit ran out in flight.
    // Answer once every queued transfer has gone out (flows are written after transfers in one pass).
    internals._get_drain = (): boolean => {
      if (!internals._draining || !internals._drained || this.#sent !== internals.delivery_count) return false;
      this.#sent += internals.credit;
      internals.delivery_count += internals.credit;
      internals.credit = 0;
      internals._draining = false;
      return true;
    };
  }

  capacity(): number {
    if (!this.sender.is_open()) return 0;
    const internals = this.#internals;
    // rhea writes a tick's transfers before its attach frames: a transfer for a link whose attach has not gone out
    // names a handle the client does not know yet (Proton-C: "no such handle"), so none until it has.
    if (internals.state.open_requests > 0) return 0;
    const queued = this.#sent - internals.delivery_count;
    return Math.min(internals.credit - queued, internals.session.outgoing.deliveries.available());
  }

  deliver(record: MessageRecord, lock: Lock | undefined, deliveryCount: number): void {
    const payload = encodeForDelivery(record, {
      deliveryCount,
      ...(lock ? { lockedUntil: lock.lockedUntil } : {}),
      state: recordState(record),
    });
    const tag = lock ? deliveryTag(lock.token) : Buffer.from(String(this.#tag++));
    const delivery = this.sender.send(payload, tag, 0);
    this.#sent++;
    if (lock) this.track(delivery, lock);
  }

  afterPump(): void {
    const internals = this.#internals;
    if (!internals._draining) return;
    internals.set_drained(true);
    internals.connection._register();
  }
}
