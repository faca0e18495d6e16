import test from "ava";
import { chatLine, jsonl, settled, upload, useBatchGateway } from "./support/batch-gateway.js";
import { customerKey } from "./support/inference-fixture.js";
import { call } from "./support/test-app.js";

const rig = useBatchGateway(test);

test.serial("files and batches are invisible to another customer", async (t) => {
  const file = await upload(rig.client, jsonl([chatLine("x", "hello")]));
  const created = await rig.client.batches.create({
    input_file_id: file.id,
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
  });
  const other = await customerKey(rig.gateway.url, rig.gateway.adminKey, "pro");
  for (const [method, path] of [
    ["GET", `/v1/files/${file.id}`],
    ["GET", `/v1/files/${file.id}/content`],
    ["DELETE", `/v1/files/${file.id}`],
    ["GET", `/v1/batches/${created.id}`],
    ["POST", `/v1/batches/${created.id}/cancel`],
  ] as const) {
    const res = await call(rig.gateway.url, method, path, other);
    t.is(res.status, 404, `${method} ${path}`);
    t.is((res.json.error as { code: string }).code, "resource_not_found");
  }
  const files = await call(rig.gateway.url, "GET", "/v1/files", other);
  t.deepEqual(files.json.data, []);
  const batches = await call(rig.gateway.url, "GET", "/v1/batches", other);
  t.deepEqual(batches.json.data, []);
  const stolen = await call(rig.gateway.url, "POST", "/v1/batches", other, {
    input_file_id: file.id,
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
  });
  t.is(stolen.status, 404);
  await settled(rig.client, created.id);
});

test.serial("bad requests to files and batches get the error envelope", async (t) => {
  const json = await call(rig.gateway.url, "POST", "/v1/files", rig.memberKey, {
    purpose: "batch",
  });
  t.is(json.status, 415);
  const form = new FormData();
  form.append("purpose", "fine-tune");
  form.append("file", new Blob(["{}\n"]), "x.jsonl");
  const wrongPurpose = await fetch(`${rig.gateway.url}/v1/files`, {
    method: "POST",
    headers: { authorization: `Bearer ${rig.memberKey}` },
    body: form,
  });
  t.is(wrongPurpose.status, 422);
  t.truthy(wrongPurpose.headers.get("x-request-id"));
  const cases: [unknown, number][] = [
    [
      { input_file_id: "file_nope", endpoint: "/v1/chat/completions", completion_window: "24h" },
      404,
    ],
    [{ input_file_id: "file_x", endpoint: "/v1/completions", completion_window: "24h" }, 422],
    [{ input_file_id: "file_x", endpoint: "/v1/embeddings", completion_window: "2d" }, 422],
    [
      { input_file_id: "file_x", endpoint: "/v1/embeddings", completion_window: "24h", extra: 1 },
      422,
    ],
    [
      {
        input_file_id: "file_x",
        endpoint: "/v1/embeddings",
        completion_window: "24h",
        metadata: { k: "a\u0000b" },
      },
      422,
    ],
    [{ input_file_id: "../etc", endpoint: "/v1/embeddings", completion_window: "24h" }, 422],
  ];
  for (const [body, status] of cases) {
    const res = await call(rig.gateway.url, "POST", "/v1/batches", rig.memberKey, body);
    t.is(res.status, status, JSON.stringify(body));
    t.truthy((res.json.error as { code?: string } | undefined)?.code);
  }
  const wrongKey = await call(rig.gateway.url, "GET", "/v1/batches", "sk-openai-key");
  t.is(wrongKey.status, 401);
  const badPage = await call(rig.gateway.url, "GET", "/v1/batches?limit=0", rig.memberKey);
  t.is(badPage.status, 422);
});
