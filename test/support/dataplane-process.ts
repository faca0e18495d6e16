import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

export interface DataplaneProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout (its JSON log) and stderr so far. */
  output: () => string;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** The HTTP port the process logged once it listened. */
  port: Promise<number>;
  stop(): Promise<void>;
}

/** `npm start` as a child process on port 0 (embedded store in `env.DATA_DIR`). */
export function startDataplaneProcess(env: Record<string, string>): DataplaneProcess {
  const child = spawn(TSX, ["dataplane/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "info",
      PORT: "0",
      GRPC_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"evident listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${out}`)));
  });
  port.catch(() => undefined);
  return {
    child,
    output: () => out,
    exited,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
