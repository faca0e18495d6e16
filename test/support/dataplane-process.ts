import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { START_SETTINGS, startEnvironment } from "../../bench/processes/start-script.js";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
/** Kept of stdout+stderr: enough for every assertion on the log, bounded for long load runs. */
const OUTPUT_CAP = 1_000_000;

export interface DataplaneExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DataplaneProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout (its JSON log) and stderr so far (the newest 1 MB). */
  output: () => string;
  /** What it wrote to stderr alone (start-up messages, the generated admin key). */
  stderr: () => string;
  /** Resolves when the process ends. */
  exited: Promise<DataplaneExit>;
  /** The HTTP port the process logged once it listened. */
  port: Promise<number>;
  /** `http://127.0.0.1:<port>`. */
  url: Promise<string>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * `npm start` as a child process on 127.0.0.1 with ports chosen by the system (embedded store in
 * `env.DATA_DIR` unless `DATABASE_URL` is given), with the start script's Node flags and
 * environment defaults (bench/processes/start-script.ts). Node itself runs it, with tsx as a
 * loader, as the start script does.
 */
export function startDataplaneProcess(env: Record<string, string>): DataplaneProcess {
  const entry = [...START_SETTINGS.nodeFlags, "--import", "tsx", "dataplane/main.ts"];
  const child = spawn(process.execPath, entry, {
    cwd: ROOT,
    env: {
      ...startEnvironment(env),
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
  const keep = (s: string) => (out.length > OUTPUT_CAP ? out.slice(-OUTPUT_CAP / 2) : out) + s;
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
    out = keep(d.toString());
  });
  const exited = new Promise<DataplaneExit>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const port = new Promise<number>((resolve, reject) => {
    let seen: string | undefined = "";
    child.stdout?.on("data", (d: Buffer) => {
      out = keep(d.toString());
      if (seen === undefined) return;
      seen += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"evident listening"/.exec(seen);
      if (m) {
        seen = undefined;
        resolve(Number(m[1]));
      }
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`exited with ${code ?? signal} before listening: ${err}`)),
    );
  });
  port.catch(() => undefined);
  const url = port.then((p) => `http://127.0.0.1:${p}`);
  url.catch(() => undefined);
  return {
    child,
    output: () => out,
    stderr: () => err,
    exited,
    port,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
