import { createHash } from "node:crypto";
import test from "ava";
import { modelBehindGateway, type ModelBehindGateway } from "./support/inference-fixture.js";
import { call } from "./support/test-app.js";

let fixture: ModelBehindGateway;

test.before(async () => {
  fixture = await modelBehindGateway("digested", "pro");
});
test.after.always(() => fixture?.close());

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** One chat call with raw fetch: the exact bytes the client got, and its record's digest. */
async function bytesAndDigest(requestId: string, stream: boolean): Promise<[string, string]> {
  const res = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${fixture.key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
    body: JSON.stringify({
      model: "digested",
      messages: [{ role: "user", content: "Tell me about the weather." }],
      ...(stream ? { stream: true } : {}),
    }),
  });
  const got = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`status ${res.status}: ${got.toString()}`);
  const records = await call(
    fixture.gateway.url,
    "GET",
    `/api/v1/audit/records?request_id=${requestId}`,
    fixture.key,
  );
  const rows = records.json.data as { response_sha256: string | null }[];
  return [sha256(got), rows[0]?.response_sha256 ?? "no record"];
}

test.serial(
  "a JSON answer's record holds the SHA-256 of the body the client got (fake upstream)",
  async (t) => {
    const [got, recorded] = await bytesAndDigest("digest-json", false);
    t.is(recorded, got);
  },
);

test.serial(
  "a streamed answer's record holds the SHA-256 of every byte the client got, [DONE] included (fake upstream)",
  async (t) => {
    fixture.upstream.script.next({ chunks: ["Sunny ", "with ", "a breeze; ", "é 中文 🙂"] });
    const [got, recorded] = await bytesAndDigest("digest-stream", true);
    t.is(recorded, got);
  },
);

test.serial("a stream longer than 64 KiB is digested whole (fake upstream)", async (t) => {
  const piece = "The forecast for the coast is dry and mild all week. ";
  fixture.upstream.script.next({ chunks: Array.from({ length: 1600 }, (_, i) => `${i} ${piece}`) });
  const [got, recorded] = await bytesAndDigest("digest-long-stream", true);
  t.is(recorded, got);
});
