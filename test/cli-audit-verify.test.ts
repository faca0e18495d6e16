import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import test from "ava";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { call, startTestApp } from "./support/test-app.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const NODE = path.join(ROOT, "node_modules", ".bin", "node");

async function verifyCli(env: Record<string, string>): Promise<{
  code: number;
  lines: { customer_id: string; ok: boolean; first_broken: { seq: number } | null }[];
}> {
  try {
    const { stdout } = await run(NODE, [path.join(ROOT, "bin", "evident.js"), "audit", "verify"], {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    return {
      code: 0,
      lines: stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return {
      code: e.code,
      lines: e.stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    };
  }
}

if (POSTGRES_URL) {
  test("evident audit verify checks every customer's chain from the store and exits 1 on tampering", async (t) => {
    const fresh = await freshPostgresUrl();
    const dataDir = `/tmp/evident-cli-${Date.now()}`;
    const env = { DATABASE_URL: fresh.url, DATA_DIR: dataDir };
    const app = await startTestApp({ env });
    try {
      for (let i = 0; i < 3; i++)
        await call(app.url, "POST", "/api/v1/keys", app.adminKey, { name: `k${i}` });
      const good = await verifyCli(env);
      t.is(good.code, 0);
      t.true(good.lines.length >= 1);
      t.true(good.lines.every((l) => l.ok));
      await app.app.ctx.db.query(
        "UPDATE audit_records SET fields = jsonb_set(fields::jsonb, '{action}', '\"key.nothing\"')::json WHERE seq = 2",
      );
      const bad = await verifyCli(env);
      t.is(bad.code, 1);
      t.is(bad.lines.find((l) => !l.ok)?.first_broken?.seq, 2);
    } finally {
      await app.close();
      await fresh.drop();
    }
  });
} else {
  test.skip("the audit verify CLI test needs DATABASE_URL", () => undefined);
}
