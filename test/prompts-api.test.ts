import test from "ava";
import { customerKey } from "./support/inference-fixture.js";
import { promptBackends, promptGateway, supportAgentVersion } from "./support/prompt-gateway.js";
import { call, errorOf } from "./support/test-app.js";

for (const backend of promptBackends) {
  test.serial(`prompts on ${backend}: lifecycle, rendering, isolation`, async (t) => {
    const { gw, close } = await promptGateway(backend);
    try {
      const alice = await customerKey(gw.url, gw.adminKey, "pro");
      const bob = await customerKey(gw.url, gw.adminKey, "pro");
      const api = (method: string, path: string, body?: unknown, key = alice) =>
        call(gw.url, method, `/api/v1/prompts${path}`, key, body);

      const created = await api("POST", "", { slug: "support", name: "Support answer" });
      t.is(created.status, 201, JSON.stringify(created.json));
      t.is((await api("POST", "", { slug: "support" })).status, 409);
      t.is((await api("POST", "", { slug: "support" }, bob)).status, 201, "slugs are per customer");

      const v1 = await api("POST", "/support/versions", supportAgentVersion);
      t.is(v1.status, 201, JSON.stringify(v1.json));
      t.is(v1.json.status, "draft");
      t.is(v1.json.version, 1);
      const undeclared = await api("POST", "/support/versions", {
        ...supportAgentVersion,
        variables: ["company"],
      });
      t.is(undeclared.status, 422);
      t.regex(errorOf(undeclared.json).message, /'question'/);

      // A draft is editable; a published version is not.
      const edited = await api("PATCH", "/support/versions/1", { note: "first" });
      t.is(edited.json.note, "first");
      t.is((await api("POST", "/support/versions/1/publish")).json.status, "published");
      t.is((await api("POST", "/support/versions/1/publish")).status, 409);
      t.is((await api("PATCH", "/support/versions/1", { note: "x" })).status, 409);
      t.is((await api("GET", "/support")).json.published_version, 1);

      const rendered = await api("POST", "/support/render", {
        variables: { company: "ACME", question: "Where is my order?" },
      });
      t.is(rendered.status, 200, JSON.stringify(rendered.json));
      t.deepEqual(rendered.json.messages, [
        { role: "system", content: "You are the support agent of ACME." },
        { role: "user", content: "Where is my order?" },
      ]);
      const missing = await api("POST", "/support/render", { variables: { company: "ACME" } });
      t.is(missing.status, 422);
      t.regex(errorOf(missing.json).message, /missing variable 'question'/);
      const extra = await api("POST", "/support/render", {
        variables: { company: "A", question: "q", secret: "s" },
      });
      t.regex(errorOf(extra.json).message, /undeclared variable 'secret'/);

      // Hostile strings are refused with 422, not stored.
      for (const bad of ["a\u0000b", "a\ud800b"]) {
        const r = await api("POST", "/support/versions", {
          ...supportAgentVersion,
          messages: [{ role: "user", content: bad }],
          variables: [],
        });
        t.is(r.status, 422);
      }
      t.is((await api("PATCH", "/support", { name: "x\u0000" })).status, 422);

      // Another customer's slug: invisible on every route.
      const bobs = [
        ["GET", "/support/versions"],
        ["POST", "/support/versions/1/publish"],
        ["PATCH", "/support/versions/1", { note: "x" }],
        ["POST", "/support/render", { variables: {} }],
        [
          "POST",
          "/support/ab-test",
          {
            arms: [
              { version: 1, weight: 1 },
              { version: 2, weight: 1 },
            ],
          },
        ],
        ["GET", "/support/ab-results"],
      ] as const;
      await api("DELETE", "/support", undefined, bob);
      t.is((await api("GET", "/support", undefined, bob)).json.archived, true);
      t.is((await api("GET", "/support")).json.archived, false, "bob archived his own prompt only");
      const notMine = await api("GET", "/support/versions", undefined, bob);
      t.deepEqual(notMine.json.data, [], "bob's prompt has no versions; alice's are not visible");
      const bob2 = await customerKey(gw.url, gw.adminKey, "pro");
      for (const [method, path, body] of bobs) {
        const r = await api(method, path, body, bob2);
        t.is(r.status, 404, `${method} ${path}`);
      }
      t.is((await api("PATCH", "/support", { name: "x" }, bob2)).status, 404);
      t.is((await api("DELETE", "/support", undefined, bob2)).status, 404);
      const list = await api("GET", "", undefined, bob2);
      t.deepEqual(list.json.data, []);

      // Archive: readable, listed only on request, unchangeable.
      const archived = await api("DELETE", "/support");
      t.is(archived.status, 200);
      t.is(archived.json.archived, true);
      t.is((await api("GET", "/support")).status, 200);
      t.deepEqual((await api("GET", "")).json.data, []);
      t.is(((await api("GET", "?include_archived=true")).json.data as unknown[]).length, 1);
      t.is((await api("POST", "/support/versions", supportAgentVersion)).status, 409);
    } finally {
      await close();
    }
  });
}
