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
}

function startProcess(env: Record<string, string>): Started {
  const child = spawn(TSX, ["dataplane/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "warn",
      GRPC_PORT: String(40_000 + Math.floor(Math.random() * 20_000)),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

async function waitForHttp(url: string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

test("a bad environment variable stops start-up with a message naming it", async (t) => {
  const p = startProcess({ PORT: "not-a-port" });
  t.is(await p.exited, 2);
  t.regex(p.stderr(), /invalid environment variable PORT/);
});

test("the first start on embedded defaults prints an admin key once; SIGTERM shuts down cleanly", async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "evident-start-"));
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  try {
    const first = startProcess({ DATA_DIR: dataDir, PORT: port });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    const key = /ev_sk_[A-Za-z0-9]{40}/.exec(first.stderr())?.[0];
    t.truthy(key, "the generated admin key is printed");
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(ok.status, 200);
    first.child.kill("SIGTERM");
    t.is(await first.exited, 0);

    const second = startProcess({ DATA_DIR: dataDir, PORT: port });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    t.false(/ev_sk_/.test(second.stderr()), "no second key is generated or printed");
    const again = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(again.status, 200, "the key survives a restart (only its hash is stored)");
    second.child.kill("SIGTERM");
    t.is(await second.exited, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
