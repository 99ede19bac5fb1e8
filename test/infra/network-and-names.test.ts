import { describe, expect, it } from "vitest";
import { parseCidr, planSubnets } from "../../infra/network-plan.js";
import { roleAssignmentName, uuidV5 } from "../../infra/role-assignment-name.js";

describe("uuidV5 and role-assignment names", () => {
  it("matches RFC 4122's name-based UUIDs (the DNS namespace's published example)", () => {
    expect(uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
  });

  it("names one grant the same every time, and different grants differently", () => {
    const scope = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/sb/queues/q";
    const principal = "11111111-1111-1111-1111-111111111111";
    const receiver = roleAssignmentName(scope, principal, "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0");
    expect(receiver).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(roleAssignmentName(scope.toUpperCase(), principal, "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0")).toBe(receiver);
    expect(roleAssignmentName(scope, principal, "69a216fc-b8fb-44d8-bc22-1f3c2cd27a39")).not.toBe(receiver);
    expect(roleAssignmentName(`${scope}2`, principal, "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0")).not.toBe(receiver);
  });
});

describe("planSubnets", () => {
  it("carves the apps /23, endpoints /24 and database /24 from the start of the address space", () => {
    expect(planSubnets("10.40.0.0/16")).toEqual({ apps: "10.40.0.0/23", privateEndpoints: "10.40.2.0/24", database: "10.40.3.0/24" });
    expect(planSubnets("172.16.4.0/22")).toEqual({ apps: "172.16.4.0/23", privateEndpoints: "172.16.6.0/24", database: "172.16.7.0/24" });
  });

  it("refuses address spaces that are too small or not network addresses", () => {
    expect(() => planSubnets("10.40.0.0/23")).toThrow(/too small/);
    expect(parseCidr("10.40.0.1/16")).toBeUndefined();
    expect(parseCidr("10.40.0.0/33")).toBeUndefined();
    expect(parseCidr("300.1.1.0/24")).toBeUndefined();
  });
});
