import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const NODE = path.join(ROOT, "node_modules", ".bin", "node");

test("an export of a seeded history downloads as a bundle that an independent verifier accepts (fake upstream)", async (t) => {
  const upstream = await startFakeUpstream();
  const app = await startTestApp();
  const dir = await mkdtemp(path.join(tmpdir(), "evident-export-"));
  try {
    await deployModel(app.url, app.adminKey, { name: "exported" }, upstream.url);
    const key = await customerKey(app.url, app.adminKey, "pro");
    const from = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < 25; i++) {
      const res = await call(app.url, "POST", "/v1/chat/completions", key, {
        model: "exported",
        messages: [{ role: "user", content: `q${i}` }],
      });
      t.is(res.status, 200);
    }
    await app.app.ctx.audit.checkpoint();
    const to = new Date(Date.now() + 60_000).toISOString();

    t.is(
      (await call(app.url, "POST", "/api/v1/compliance/exports", key, { kind: "gdpr", from, to }))
        .status,
      422,
    );
    t.is(
      (
        await call(app.url, "POST", "/api/v1/compliance/exports", key, {
          kind: "hipaa",
          from: to,
          to: from,
        })
      ).status,
      422,
    );
    const created = await call(app.url, "POST", "/api/v1/compliance/exports", key, {
      kind: "hipaa",
      from,
      to,
    });
    t.is(created.status, 201);
    t.is(created.json.status, "queued");
    const id = created.json.id as string;
    let job: Record<string, unknown> = created.json;
    const deadline = Date.now() + 60_000;
    while (job.status !== "completed" && job.status !== "failed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      job = (await call(app.url, "GET", `/api/v1/compliance/exports/${id}`, key)).json;
    }
    t.is(job.status, "completed", String(job.error));
    t.is(job.record_count, 27, "25 calls, the key's creation and the export's own creation");
    t.true(job.chain_ok as boolean);

    const res = await fetch(`${app.url}/api/v1/compliance/exports/${id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    t.is(res.status, 200);
    t.is(res.headers.get("content-type"), "application/gzip");
    const bundle = Buffer.from(await res.arrayBuffer());
    const file = path.join(dir, "bundle.tar.gz");
    await writeFile(file, bundle);
    const { stdout } = await run(NODE, [
      path.join(ROOT, "scripts", "verify-evidence-bundle.mjs"),
      file,
    ]);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      chain_ok: boolean;
      files_ok: boolean;
      records: number;
    };
    t.true(report.ok);
    t.true(report.chain_ok);
    t.true(report.files_ok);
    t.is(report.records, 27);

    const other = await customerKey(app.url, app.adminKey, "pro");
    t.is(
      (await call(app.url, "GET", `/api/v1/compliance/exports/${id}`, other)).status,
      404,
      "another customer's export does not exist for them",
    );
    const list = await call(app.url, "GET", "/api/v1/compliance/exports?limit=1", key);
    t.is((list.json.data as unknown[]).length, 1);
    t.is((await call(app.url, "DELETE", `/api/v1/compliance/exports/${id}`, key)).status, 204);
    t.is(
      (await call(app.url, "GET", `/api/v1/compliance/exports/${id}/download`, key)).status,
      404,
    );
  } finally {
    await app.close();
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
});
