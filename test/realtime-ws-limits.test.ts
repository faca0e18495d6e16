import test from "ava";
import { connectRealtime } from "./support/realtime-client.js";
import { refusal, useRealtimeGateway } from "./support/realtime-gateway.js";
import { call } from "./support/test-app.js";
import { within } from "./support/within.js";

const rig = useRealtimeGateway(test);

test.serial(
  "rate limits: a session counts as a request; a response past the token limit closes the session with 1008",
  async (t) => {
    rig.reset();
    const customer = await call(
      rig.gateway.url,
      "POST",
      "/api/v1/customers",
      rig.gateway.adminKey,
      {
        name: "rt-limited",
        tier: "pro",
      },
    );
    const limitedKey = (
      await call(rig.gateway.url, "POST", "/api/v1/keys", rig.gateway.adminKey, {
        customer_id: customer.json.id,
        name: "k",
      })
    ).json.key as string;
    const patched = await call(
      rig.gateway.url,
      "PATCH",
      `/api/v1/budget/config?customer_id=${String(customer.json.id)}`,
      rig.gateway.adminKey,
      { rate_limits: { requests_per_minute: 1, tokens_per_minute: 100 } },
    );
    t.is(patched.status, 200);
    const client = await connectRealtime(rig.gateway.url, "rt-model", { key: limitedKey });
    const second = await refusal(connectRealtime(rig.gateway.url, "rt-model", { key: limitedKey }));
    t.is(second.status, 429);
    t.is(second.body.error?.code, "rate_limit_exceeded");
    // The response reserves its default completion tokens, more than the 100 tokens a minute.
    client.send({ type: "response.create" });
    const error = await client.waitFor((e) => e.type === "error");
    t.is((error.error as { code: string }).code, "rate_limit_exceeded");
    const closed = await client.closed;
    t.is(closed.code, 1008);
  },
);

test.serial("concurrent sessions per customer are capped", async (t) => {
  rig.reset();
  const open = [];
  for (let i = 0; i < 3; i++)
    open.push(await connectRealtime(rig.gateway.url, "rt-model", { key: rig.key }));
  const fourth = await refusal(connectRealtime(rig.gateway.url, "rt-model", { key: rig.key }));
  t.is(fourth.status, 429);
  t.is(fourth.body.error?.code, "concurrency_limit_exceeded");
  for (const c of open) c.ws.close();
  await Promise.all(open.map((c) => c.closed));
});

test.serial(
  "fake realtime backend: a backend disconnect closes the client; a client disconnect closes the backend",
  async (t) => {
    rig.reset();
    const a = await connectWhenFree();
    await a.waitFor((e) => e.type === "session.created");
    rig.backend.closeAll(1000);
    const closed = await a.closed;
    t.is(closed.code, 1000);
    const b = await connectWhenFree();
    await b.waitFor((e) => e.type === "session.created");
    t.is(rig.backend.open(), 1);
    b.ws.terminate();
    t.true(await within(10_000, async () => rig.backend.open() === 0));
  },
);

test.serial("an oversized message closes the session with 1009", async (t) => {
  const client = await connectRealtime(rig.gateway.url, "rt-model", { key: rig.key });
  client.send({ type: "input_audio_buffer.append", audio: "A".repeat(70_000) });
  const closed = await client.closed;
  t.is(closed.code, 1009);
  t.true(await within(10_000, async () => rig.backend.open() === 0));
});

/**
 * A session's slot is freed once its audit record is durable, a moment after its sockets close:
 * connect, retrying while the customer is still at the session cap (429).
 */
async function connectWhenFree(): Promise<Awaited<ReturnType<typeof connectRealtime>>> {
  let client: Awaited<ReturnType<typeof connectRealtime>> | undefined;
  await within(10_000, async () => {
    try {
      client = await connectRealtime(rig.gateway.url, "rt-model", { key: rig.key });
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 429) return false;
      throw err;
    }
  });
  if (!client) throw new Error("the session cap never freed a slot");
  return client;
}

test.serial("no leak after 1,000 sessions opened and closed (fake realtime backend)", async (t) => {
  rig.reset();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let round = 0; round < 334; round++) {
    const clients = await Promise.all([0, 1, 2].map(() => connectWhenFree()));
    for (const c of clients) c.ws.close();
    await Promise.all(clients.map((c) => c.closed));
    await within(10_000, async () => rig.backend.open() === 0);
  }
  t.true(await within(10_000, async () => rig.backend.open() === 0), "every backend socket closed");
  const growthMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  t.log(`heap growth after 1,002 sessions: ${growthMb.toFixed(1)} MiB`);
  t.true(growthMb < 64, `heap grew ${growthMb.toFixed(1)} MiB`);
});
