// The AMQPS listener: TLS with a certificate authority the emulator makes, for clients that insist on TLS (Python's
// azure-servicebus 7.8 dials 5671 whatever the connection string says). The plain listener stays for the JS SDK.
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { connect as tlsConnect } from "node:tls";
import rhea, { type Connection } from "rhea";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../../sandbox/index.js";
import { putToken, sasToken } from "./support.js";

let emulator: ServiceBusEmulator;
let taken: Server | undefined;
beforeAll(async () => {
  // Another emulator (or a real broker) may hold 5671 on this machine; hold it ourselves so the fallback is tested
  // either way. Only when it is free: a port someone else holds already takes the same path.
  taken = await new Promise<Server | undefined>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(5671, "127.0.0.1", () => resolve(server));
  });
  emulator = await startServiceBusEmulator({ queues: { billing: {} }, tls: true });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise((resolve) => (taken ? taken.close(resolve) : resolve(undefined)));
});

test("5671 taken: the AMQPS listener takes a free port, and its connection string names it", () => {
  const tls = emulator.tls!;
  expect(tls.port).not.toBe(5671);
  expect(tls.port).not.toBe(emulator.port);
  expect(tls.connectionString).toBe(
    `Endpoint=sb://127.0.0.1:${tls.port}/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE`,
  );
});

test("a TLS client that trusts only the sandbox's CA connects, puts a token and is answered; one that does not is refused", async () => {
  const tls = emulator.tls!;
  const ca = await readFile(tls.caFile, "utf8");
  expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
  const connection: Connection = rhea.create_container().connect({
    host: "127.0.0.1",
    port: tls.port,
    transport: "tls",
    ca,
    servername: "localhost",
    reconnect: false,
  } as never);
  connection.on("disconnected", () => {});
  try {
    await new Promise((resolve) => connection.once("connection_open", resolve));
    const namespace = "sb://127.0.0.1";
    expect(await putToken(connection, namespace, sasToken(namespace, "RootManageSharedAccessKey", "SAS_KEY_VALUE"))).toBe(202);
  } finally {
    connection.close();
  }
  // Without the CA, Node's default trust store refuses the certificate.
  const refusal = await new Promise<string>((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: tls.port, servername: "localhost" }, () => resolve("trusted"));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
  expect(refusal).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
  // The certificate names 127.0.0.1 (an IP SAN), so a client checking the host by address accepts it too.
  const byAddress = await new Promise<string>((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: tls.port, ca }, () => {
      socket.destroy();
      resolve("trusted");
    });
    socket.once("error", (error: Error) => resolve(error.message));
  });
  expect(byAddress).toBe("trusted");
});

test("stop() removes the CA file it made and closes both listeners", async () => {
  const other = await startServiceBusEmulator({ queues: {}, tls: { port: 0 } });
  const { caFile, port } = other.tls!;
  expect(existsSync(caFile)).toBe(true);
  await other.stop();
  expect(existsSync(caFile)).toBe(false);
  const refused = await new Promise<boolean>((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => resolve(false));
    socket.once("error", () => resolve(true));
  });
  expect(refused).toBe(true);
});
