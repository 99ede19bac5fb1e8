// Database faults for tests: a TCP proxy in front of PostgreSQL that refuses, hangs or drops.
export { startDatabaseFaultProxy, type DatabaseFaultMode, type DatabaseFaultProxy } from "./fault-proxy.js";
