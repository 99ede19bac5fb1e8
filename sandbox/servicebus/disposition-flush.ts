// Service Bus answers every transfer and every settlement with its own outcome. The emulator speaks AMQP through
// rhea, which writes the dispositions made before its next flush as ranges sent with their first delivery's outcome,
// and does not compare a range's second delivery with its first: accepting one client's send and refusing the next
// (ServerBusy, lock lost) in the same tick would tell both clients the first answer. The real broker does not merge
// outcomes, so the emulator must not: accepts may share a flush (a range of accepts is right), anything else goes out
// alone. rhea flushes on process.nextTick, so a flush is over by the next setImmediate.
// (The same rhea merge on the client side is what runtime/consumer/settlement-gate.ts guards against in consumers.)

export type DispositionOutcome = "accept" | "other";

export class DispositionFlush {
  /** What the current flush holds: nothing, accepts only, or one other outcome. */
  #flush: DispositionOutcome | undefined;
  #ending = false;
  readonly #waiting: { outcome: DispositionOutcome; apply(): void }[] = [];

  /** Writes a disposition now when the current flush can hold it, else in a later flush (in arrival order). */
  dispose(outcome: DispositionOutcome, apply: () => void): void {
    if (this.#waiting.length === 0 && this.#fits(outcome)) {
      this.#open(outcome);
      apply();
      return;
    }
    this.#waiting.push({ outcome, apply });
  }

  #fits(outcome: DispositionOutcome): boolean {
    return this.#flush === undefined || (this.#flush === "accept" && outcome === "accept");
  }

  #open(outcome: DispositionOutcome): void {
    this.#flush = outcome;
    if (this.#ending) return;
    this.#ending = true;
    setImmediate(() => this.#end());
  }

  #end(): void {
    this.#flush = undefined;
    this.#ending = false;
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.outcome)) {
      const next = this.#waiting.shift()!;
      this.#open(next.outcome);
      next.apply();
    }
  }
}
