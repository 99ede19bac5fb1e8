import { describe, expect, it } from "vitest";
import { parseCidr, planSubnets } from "../../infra/config/index.js";

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
