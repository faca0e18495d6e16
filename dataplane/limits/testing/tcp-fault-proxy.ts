import net from "node:net";

/**
 * A TCP proxy in front of a real server that tests can take down, bring back on the same port, or
 * turn into a black hole (accepts bytes, answers nothing). It stands in for "Redis stopped" without
 * touching the real server that other processes share.
 */
export interface TcpFaultProxy {
  readonly port: number;
  readonly url: string;
  /** Stop listening and cut every open connection. */
  down(): Promise<void>;
  /** Listen again on the same port and forward. */
  up(): Promise<void>;
  /** While true, accepted connections swallow data and never answer. */
  setBlackHole(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(
  targetHost: string,
  targetPort: number,
): Promise<TcpFaultProxy> {
  const sockets = new Set<net.Socket>();
  let blackHole = false;
  let server = createServer();
  const port = await listen(server, 0);

  function createServer(): net.Server {
    return net.createServer((client) => {
      sockets.add(client);
      client.on("close", () => sockets.delete(client));
      client.on("error", () => undefined);
      const upstream = net.connect(targetPort, targetHost);
      sockets.add(upstream);
      upstream.on("close", () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      client.on("data", (chunk) => {
        if (!blackHole) upstream.write(chunk);
      });
      upstream.on("data", (chunk) => {
        if (!blackHole) client.write(chunk);
      });
    });
  }

  async function down(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    sockets.clear();
    await closed;
  }

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    down,
    async up() {
      server = createServer();
      await listen(server, port);
    },
    setBlackHole(on) {
      blackHole = on;
    },
    async close() {
      if (server.listening) await down();
    },
  };
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}
