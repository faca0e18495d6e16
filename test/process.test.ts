import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";

const ROOT = path.resolve(import.meta.dirname, "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

interface Started {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
  /** The HTTP port the process logged once it listened. */
  port: Promise<number>;
}

function startProcess(env: Record<string, string>): Started {
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
  let err = "";
  let out = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"evident listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${err}`)));
  });
  port.catch(() => undefined);
  return { child, stderr: () => err, exited, port };
}

test("a bad environment variable stops start-up with a message naming it", async (t) => {
  const p = startProcess({ PORT: "not-a-port" });
  t.is(await p.exited, 2);
  t.regex(p.stderr(), /invalid environment variable PORT/);
});

test("the first start on embedded defaults prints an admin key once; SIGTERM shuts down cleanly", async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "evident-start-"));
  try {
    const first = startProcess({ DATA_DIR: dataDir });
    const port = await first.port;
    const key = /ev_sk_[A-Za-z0-9]{40}/.exec(first.stderr())?.[0];
    t.truthy(key, "the generated admin key is printed");
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(ok.status, 200);
    first.child.kill("SIGTERM");
    t.is(await first.exited, 0);

    const second = startProcess({ DATA_DIR: dataDir });
    const port2 = await second.port;
    t.false(/ev_sk_/.test(second.stderr()), "no second key is generated or printed");
    const again = await fetch(`http://127.0.0.1:${port2}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(again.status, 200, "the key survives a restart (only its hash is stored)");
    second.child.kill("SIGTERM");
    t.is(await second.exited, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
