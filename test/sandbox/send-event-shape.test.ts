// The sandbox spells out the default billing event (it imports no other room): held here to the runtime's own
// UsageEvent, field for field, so `chargeguard sandbox send` puts on the queue what the consumer bills. The
// comparison is the compiler's (tsc, in CI's typecheck).
import { describe, expectTypeOf, it } from "vitest";
import type { UsageEvent } from "../../runtime/index.js";
import type { SandboxUsageEvent } from "../../sandbox/send-event.js";

describe("the sandbox's usage event", () => {
  it("is the runtime's UsageEvent", () => {
    expectTypeOf<SandboxUsageEvent>().toEqualTypeOf<UsageEvent>();
  });
});
