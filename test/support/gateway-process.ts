import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface GatewayProcess {
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/**
 * `dataplane/main.ts` as its own process on 127.0.0.1 (ports chosen by the system). Node itself
 * runs it (with tsx as a loader, not the tsx CLI, which would put a wrapper process in between
 * that a SIGKILL would hit instead of the gateway).
 */
export function startGatewayProcess(env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "dataplane/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "info",
      HOST: "127.0.0.1",
      PORT: "0",
      GRPC_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"evident listening"/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
      if (out.length > 100_000) out = out.slice(-10_000);
    });
    void exited.then(({ code }) =>
      reject(new Error(`exited with ${code} before listening: ${err}`)),
    );
  });
  url.catch(() => undefined);
  return { child, url, exited, stderr: () => err };
}
