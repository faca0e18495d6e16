import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { startDataplaneProcess } from "./support/dataplane-process.js";

test("a bad environment variable stops start-up with a message naming it", async (t) => {
  const p = startDataplaneProcess({ PORT: "not-a-port" });
  t.is((await p.exited).code, 2);
  t.regex(p.stderr(), /invalid environment variable PORT/);
});

test("the first start on embedded defaults prints an admin key once; SIGTERM shuts down cleanly", async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "evident-start-"));
  try {
    const first = startDataplaneProcess({ DATA_DIR: dataDir });
    const port = await first.port;
    const key = /ev_sk_[A-Za-z0-9]{40}/.exec(first.stderr())?.[0];
    t.truthy(key, "the generated admin key is printed");
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(ok.status, 200);
    first.child.kill("SIGTERM");
    t.is((await first.exited).code, 0);

    const second = startDataplaneProcess({ DATA_DIR: dataDir });
    const port2 = await second.port;
    t.false(/ev_sk_/.test(second.stderr()), "no second key is generated or printed");
    const again = await fetch(`http://127.0.0.1:${port2}/api/v1/health`, {
      headers: { authorization: `Bearer ${key ?? ""}` },
    });
    t.is(again.status, 200, "the key survives a restart (only its hash is stored)");
    second.child.kill("SIGTERM");
    t.is((await second.exited).code, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
