import { createHash } from "node:crypto";
import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
let key: string;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  await deployModel(gateway.url, gateway.adminKey, { name: "digested" }, upstream.url);
  key = await customerKey(gateway.url, gateway.adminKey, "pro");
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** One chat call with raw fetch: the exact bytes the client got, and its record's digest. */
async function bytesAndDigest(requestId: string, stream: boolean): Promise<[string, string]> {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
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
    gateway.url,
    "GET",
    `/api/v1/audit/records?request_id=${requestId}`,
    key,
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
    upstream.script.next({ chunks: ["Sunny ", "with ", "a breeze; ", "é 中文 🙂"] });
    const [got, recorded] = await bytesAndDigest("digest-stream", true);
    t.is(recorded, got);
  },
);

test.serial("a stream longer than 64 KiB is digested whole (fake upstream)", async (t) => {
  const piece = "The forecast for the coast is dry and mild all week. ";
  upstream.script.next({ chunks: Array.from({ length: 1600 }, (_, i) => `${i} ${piece}`) });
  const [got, recorded] = await bytesAndDigest("digest-long-stream", true);
  t.is(recorded, got);
});
