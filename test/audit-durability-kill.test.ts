import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { generateApiKey } from "../dataplane/core/api-key-format.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { startDataplaneProcess } from "./support/dataplane-process.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call } from "./support/test-app.js";

const stores = POSTGRES_URL ? (["pglite", "postgres"] as const) : (["pglite"] as const);

/** Every request id the customer's audit records name, paging through all of them. */
async function recordedRequestIds(url: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call(
      url,
      "GET",
      `/api/v1/audit/records?kind=inference&limit=1000&offset=${offset}`,
      key,
    );
    const data = page.json.data as { request_id: string }[];
    ids.push(...data.map((r) => r.request_id));
    if (data.length < 1000) return ids;
  }
}

for (const store of stores) {
  test.serial(
    `a gateway killed with SIGKILL mid-load loses no record of an answered call; the chain verifies after restart (${store}, AUDIT_DURABILITY=local, fake upstream)`,
    async (t) => {
      const dataDir = await mkdtemp(path.join(tmpdir(), "evident-kill-"));
      const fresh = store === "postgres" ? await freshPostgresUrl() : undefined;
      const upstream = await startFakeUpstream({ recordRequests: false });
      const env = {
        DATA_DIR: dataDir,
        EVIDENT_ADMIN_KEY: generateApiKey(),
        AUDIT_DURABILITY: "local",
        ...(fresh ? { DATABASE_URL: fresh.url } : {}),
      };
      const first = startDataplaneProcess(env);
      let second: ReturnType<typeof startDataplaneProcess> | undefined;
      try {
        const url = await first.url;
        await deployModel(url, env.EVIDENT_ADMIN_KEY, { name: "kill-model" }, upstream.url);
        const key = await customerKey(url, env.EVIDENT_ADMIN_KEY, "enterprise");

        const answered: string[] = [];
        let killed = false;
        let sent = 0;
        const worker = async () => {
          while (!killed && sent < 3000) {
            sent += 1;
            const requestId = randomUUID();
            try {
              const res = await call(
                url,
                "POST",
                "/v1/chat/completions",
                key,
                { model: "kill-model", messages: [{ role: "user", content: `m${sent}` }] },
                { "x-request-id": requestId },
              );
              if (res.status === 200) answered.push(requestId);
            } catch {
              return; // the process is gone: this call got no answer
            }
            if (answered.length >= 150 && !killed) {
              killed = true;
              first.child.kill("SIGKILL");
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        t.true(killed, "the process was killed during the load run");
        t.is((await first.exited).signal, "SIGKILL");

        second = startDataplaneProcess(env);
        const again = await second.url;
        const recorded = await recordedRequestIds(again, key);
        const seen = new Set(recorded);
        const missing = answered.filter((id) => !seen.has(id));
        t.deepEqual(missing, [], "every answered call has its record");
        t.is(seen.size, recorded.length, "no record twice");
        const verified = await call(again, "GET", "/api/v1/audit/verify", key);
        t.true(verified.json.ok as boolean, JSON.stringify(verified.json));
        t.true((verified.json.checked as number) >= recorded.length);
      } finally {
        first.child.kill("SIGKILL");
        if (second) {
          second.child.kill("SIGTERM");
          await second.exited;
        }
        await first.exited;
        await upstream.close();
        await fresh?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
}
