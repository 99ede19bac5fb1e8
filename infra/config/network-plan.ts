// The production network's address plan, pure: one VNet address space carved into the three subnets the service
// needs. Container Apps (workload profiles) wants a subnet of its own, delegated to Microsoft.App/environments
// (/23 leaves room to grow); PostgreSQL Flexible wants one delegated to it; private endpoints share a third.

export interface SubnetPlan {
  apps: string;
  privateEndpoints: string;
  database: string;
}

const ipToNumber = (ip: string) => ip.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
const numberToIp = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");

/** Parses "a.b.c.d/n"; undefined when it is not an IPv4 CIDR whose address is the network's first. */
export function parseCidr(cidr: string): { base: number; prefix: number } | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((octet) => octet > 255) || prefix > 32) return undefined;
  const base = ipToNumber(octets.join("."));
  if (base % 2 ** (32 - prefix) !== 0) return undefined;
  return { base, prefix };
}

/** The smallest address space that holds the three subnets: a /23 and two /24s. */
export const LARGEST_VNET_PREFIX = 22;

/** Carves apps (/23), private endpoints (/24) and database (/24) from the start of the address space. */
export function planSubnets(addressSpace: string): SubnetPlan {
  const parsed = parseCidr(addressSpace);
  if (!parsed) throw new Error(`${addressSpace} is not an IPv4 CIDR block starting at its network address (e.g. 10.40.0.0/16)`);
  if (parsed.prefix > LARGEST_VNET_PREFIX) {
    throw new Error(`${addressSpace} is too small: the apps (/23), private endpoints (/24) and database (/24) subnets need a /${LARGEST_VNET_PREFIX} or larger`);
  }
  return {
    apps: `${numberToIp(parsed.base)}/23`,
    privateEndpoints: `${numberToIp(parsed.base + 512)}/24`,
    database: `${numberToIp(parsed.base + 768)}/24`,
  };
}
