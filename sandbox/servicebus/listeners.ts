// The emulator's listeners on 127.0.0.1: plain AMQP for the JavaScript SDK (`UseDevelopmentEmulator=true`), and AMQPS
// for clients that insist on TLS, with the sandbox's own certificate authority (local-authority.ts).
import type { AddressInfo, Server, Socket } from "node:net";
import type { Container } from "rhea";

/** Unsettled deliveries a session may hold; rhea's default (2048) is low for a receiver holding locks. */
const sessionBufferSize = 8_192;

/** The AMQPS port Service Bus listens on, which Python's azure-servicebus 7.8 always dials. */
export const amqpsPort = 5671;

export interface ListenOptions {
  port: number;
  /** TLS with this key and certificate; plain TCP when absent. */
  tls?: { key: string; cert: string };
  /** Every accepted socket, so the emulator can cut them (faults, stop). */
  sockets: Set<Socket>;
}

/** The max-frame-size Service Bus announces in its open frame. */
export const serviceBusMaxFrameSize = 65_536;

export async function listen(container: Container, options: ListenOptions): Promise<{ server: Server; port: number }> {
  const server = container.listen({
    port: options.port,
    host: "127.0.0.1",
    session_buffer_size: sessionBufferSize,
    // Service Bus's open frame says 65536. Left unset, rhea says 4294967295 (none), and uamqp (Python's azure-servicebus
    // 7.8) then writes a message over 64 KB as one frame, which its own frame codec refuses: the send fails in the
    // client ("failed to add message data to outgoing queue") for any message from 64 KB to the 256 KB Service Bus allows.
    max_frame_size: serviceBusMaxFrameSize,
    // rhea leaves Nagle on for accepted sockets: a small frame written while the last is unacknowledged would wait
    // for the client's delayed ACK (up to 40 ms on Linux) before it leaves, on every exchange.
    tcp_no_delay: true,
    ...(options.tls ? { transport: "tls", key: options.tls.key, cert: options.tls.cert } : {}),
  } as never) as unknown as Server;
  server.on("connection", (socket: Socket) => {
    if (options.tls) socket.setNoDelay(true);
    options.sockets.add(socket);
    socket.on("close", () => options.sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // A TLS client that goes away mid-handshake must not take the process down.
  server.on("tlsClientError", () => {});
  server.on("error", () => {});
  return { server, port: (server.address() as AddressInfo).port };
}

/** The AMQPS listener: `port` when given; else 5671, or a free port when 5671 is taken (the settings name it). */
export async function listenTls(container: Container, options: Omit<ListenOptions, "port"> & { port: number | undefined }) {
  if (options.port !== undefined) return listen(container, { ...options, port: options.port });
  try {
    return await listen(container, { ...options, port: amqpsPort });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EADDRINUSE" && code !== "EACCES") throw error;
    return listen(container, { ...options, port: 0 });
  }
}
