import test from "ava";
import { POSTGRES_URL } from "./support/databases.js";
import { customerKey } from "./support/inference-fixture.js";
import { ragGateway as gateway, uploadFile } from "./support/rag-app.js";
import { call, errorOf } from "./support/test-app.js";

/** RAG isolation between customers and classifications, and uploads refused with clear 4xx. */

const backends = ["pglite", ...(POSTGRES_URL ? ["postgres"] : [])] as const;

for (const backend of backends) {
  test.serial(
    `rag on ${backend}: another customer can never see, change or delete them`,
    async (t) => {
      const { gw, close } = await gateway(backend);
      try {
        const alice = await customerKey(gw.url, gw.adminKey, "pro");
        const bob = await customerKey(gw.url, gw.adminKey, "pro");
        const as = (key: string) => (method: string, path: string, body?: unknown) =>
          call(gw.url, method, path, key, body);
        const a = as(alice);
        const b = as(bob);
        const sqlish = `x'); DELETE FROM rag_chunks; --`;
        const col = await a("POST", "/api/v1/rag/collections", {
          name: sqlish,
          description: "' OR '1'='1",
          metadata: { [sqlish]: sqlish },
        });
        t.is(col.status, 201, JSON.stringify(col.json));
        t.is(col.json.name, sqlish);
        const id = col.json.id as string;
        const doc = await a("POST", `/api/v1/rag/collections/${id}/documents`, {
          filename: sqlish,
          content: `Secret plan: ${sqlish}`,
          metadata: { note: sqlish },
        });
        t.is(doc.status, 201, JSON.stringify(doc.json));
        t.is(doc.json.filename, sqlish);
        const docId = doc.json.id as string;

        t.deepEqual((await b("GET", "/api/v1/rag/collections")).json.data, []);
        for (const [method, path, body] of [
          ["GET", `/api/v1/rag/collections/${id}`, undefined],
          ["PATCH", `/api/v1/rag/collections/${id}`, { name: "mine" }],
          ["DELETE", `/api/v1/rag/collections/${id}`, undefined],
          ["GET", `/api/v1/rag/collections/${id}/documents`, undefined],
          ["POST", `/api/v1/rag/collections/${id}/documents`, { content: "intruder" }],
          ["GET", `/api/v1/rag/documents/${docId}?include=chunks`, undefined],
          ["DELETE", `/api/v1/rag/documents/${docId}`, undefined],
        ] as const) {
          const res = await b(method, path, body);
          t.is(res.status, 404, `${method} ${path}`);
          t.is(errorOf(res.json).code, "resource_not_found");
          t.false(JSON.stringify(res.json).includes("Secret plan"));
        }
        t.is((await b("GET", "/api/v1/rag/usage")).json.documents, 0);
        t.is((await a("GET", `/api/v1/rag/documents/${docId}`)).json.status, "ready", "untouched");

        // Path ids that are not ids never reach a query.
        const bad = await b("GET", `/api/v1/rag/collections/${encodeURIComponent("' OR 1=1 --")}`);
        t.is(bad.status, 422);

        // Classification: a public key cannot read (or create) a confidential collection.
        const keyOf = async (floor: string) => {
          const me = await a("GET", "/api/v1/keys");
          const customerId = (
            (me.json.data as { customer_id: string }[])[0] as { customer_id: string }
          ).customer_id;
          const res = await call(gw.url, "POST", "/api/v1/keys", gw.adminKey, {
            customer_id: customerId,
            name: `k-${floor}`,
            classification_floor: floor,
          });
          return res.json.key as string;
        };
        const confidentialKey = await keyOf("confidential");
        const secret = await call(gw.url, "POST", "/api/v1/rag/collections", confidentialKey, {
          name: "board minutes",
          classification: "confidential",
        });
        t.is(secret.status, 201, JSON.stringify(secret.json));
        const denied = await a("GET", `/api/v1/rag/collections/${secret.json.id as string}`);
        t.is(denied.status, 403);
        t.is(errorOf(denied.json).code, "classification_restricted");
        const upload = await a(
          "POST",
          `/api/v1/rag/collections/${secret.json.id as string}/documents`,
          {
            content: "x",
          },
        );
        t.is(upload.status, 403);
        const names = (
          (await a("GET", "/api/v1/rag/collections")).json.data as { name: string }[]
        ).map((c) => c.name);
        t.deepEqual(
          names,
          [sqlish],
          "the public key's list leaves the confidential collection out",
        );
        t.is(
          (await a("POST", "/api/v1/rag/collections", { name: "up", classification: "restricted" }))
            .status,
          403,
        );
      } finally {
        await close();
      }
    },
  );
}

test.serial("rag uploads that cannot be ingested get clear 4xx answers", async (t) => {
  const { gw, close } = await gateway("pglite", {
    RAG_MAX_DOCUMENT_BYTES: "400000",
    RAG_STORAGE_MB: "free=1",
  });
  try {
    const key = await customerKey(gw.url, gw.adminKey, "free");
    const col = await call(gw.url, "POST", "/api/v1/rag/collections", key, { name: "c" });
    const id = col.json.id as string;
    const path = `/api/v1/rag/collections/${id}/documents`;
    const json = (body: unknown) => call(gw.url, "POST", path, key, body);
    const file = (bytes: Buffer, name: string, type: string) =>
      uploadFile(gw.url, key, id, { bytes, name, type });

    const cases: [
      string,
      Promise<{ status: number; json: Record<string, unknown> }>,
      number,
      string,
    ][] = [
      ["empty text", json({ content: "" }), 422, "validation_failed"],
      ["no content", json({ filename: "a.txt" }), 422, "validation_failed"],
      ["both contents", json({ content: "a", content_base64: "YQ==" }), 422, "validation_failed"],
      [
        "bad base64",
        json({ content_base64: "%%%", content_type: "application/pdf" }),
        422,
        "validation_failed",
      ],
      ["unknown field", json({ content: "a", owner: "x" }), 422, "validation_failed"],
      [
        "bad metadata",
        json({ content: "a", metadata: { nested: { no: 1 } } }),
        422,
        "validation_failed",
      ],
      [
        "image",
        file(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "a.png", "image/png"),
        415,
        "unsupported_media_type",
      ],
      [
        "corrupt PDF",
        file(Buffer.from("%PDF-1.4\n1 0 obj <<"), "a.pdf", "application/pdf"),
        422,
        "validation_failed",
      ],
      [
        "PDF that is not",
        file(Buffer.from("hello"), "a.pdf", "application/pdf"),
        422,
        "validation_failed",
      ],
      [
        "binary as text",
        file(Buffer.from([0x41, 0x00, 0xff]), "a.txt", "text/plain"),
        422,
        "validation_failed",
      ],
      ["empty file", file(Buffer.alloc(0), "a.txt", "text/plain"), 422, "validation_failed"],
      ["huge", file(Buffer.alloc(400_001, 0x61), "a.txt", "text/plain"), 413, "request_too_large"],
      [
        "no file part",
        call(gw.url, "POST", path, key, "--x--\r\n", {
          "content-type": "multipart/form-data; boundary=x",
        }),
        422,
        "validation_failed",
      ],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      t.is(res.status, status, `${name}: ${JSON.stringify(res.json)}`);
      t.is(errorOf(res.json).code, code, name);
    }
    const wrongType = await call(gw.url, "POST", path, key, "plain", {
      "content-type": "text/csv",
    });
    t.is(wrongType.status, 415);

    // The free tier's cap (set to 1 MiB here): the third 390 kB document would pass it.
    for (const n of [1, 2]) {
      const ok = await file(Buffer.alloc(390_000, 0x61 + n), `${n}.txt`, "text/plain");
      t.true([201, 202].includes(ok.status), JSON.stringify(ok.json));
    }
    const over = await file(Buffer.alloc(390_000, 0x64), "3.txt", "text/plain");
    t.is(over.status, 413);
    t.is(errorOf(over.json).code, "storage_cap_exceeded");
    t.regex(errorOf(over.json).message, /free tier/);
    const usage = await call(gw.url, "GET", "/api/v1/rag/usage", key);
    t.is(usage.json.bytes_cap, 1024 * 1024);
    t.is(usage.json.bytes_used, 780_000);
  } finally {
    await close();
  }
});
