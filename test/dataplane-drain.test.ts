// Rollouts without errors: on SIGTERM the data plane fails readiness first while it still serves,
// then closes its listeners and lets the in-flight calls finish (dataplane/app/graceful-shutdown.ts,
// the sequence dataplane/main.ts runs). Upstream: the fake OpenAI upstream (a test double).
import test from "ava";
import { pino } from "pino";
import { drainAndClose } from "../dataplane/app/graceful-shutdown.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startTestApp } from "./support/test-app.js";

test("drain (fake upstream): readiness fails first while requests are still served, an in-flight stream finishes, then the listener closes", async (t) => {
  const upstream = await startFakeUpstream();
  const gateway = await startTestApp();
  t.teardown(() => upstream.close());
  await deployModel(gateway.url, gateway.adminKey, { name: "drain-model" }, upstream.url);
  const key = await customerKey(gateway.url, gateway.adminKey, "pro");
  const chat = (stream: boolean) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "drain-model",
        stream,
        messages: [{ role: "user", content: "hi" }],
      }),
    });

  upstream.script.next({ chunkCount: 20, paceMs: 20 });
  const inFlight = await chat(true);
  t.is(inFlight.status, 200);
  const reader = inFlight.body!.getReader();
  const first = await reader.read();
  t.false(first.done, "the stream has started before the drain");

  let releaseDelay = (): void => undefined;
  const delayed = new Promise<void>((resolve) => (releaseDelay = resolve));
  let delayStarted = (): void => undefined;
  const inDelay = new Promise<void>((resolve) => (delayStarted = resolve));
  const drained = drainAndClose({
    readiness: gateway.app.ctx.readiness,
    drainDelayMs: 5000,
    closeGrpc: async () => undefined,
    closeApp: () => gateway.close(),
    sleep: () => {
      delayStarted();
      return delayed;
    },
    logger: pino({ level: "silent" }),
  });
  await inDelay;
  const ready = await fetch(`${gateway.url}/readyz`);
  t.is(ready.status, 503, "readiness fails first");
  t.like((await ready.json()) as object, { checks: { draining: false } });
  const during = await chat(false);
  t.is(during.status, 200, "a request that still arrives during the delay is served");
  await during.text();

  releaseDelay();
  let text = Buffer.from(first.value ?? new Uint8Array()).toString("utf8");
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    text += Buffer.from(next.value).toString("utf8");
  }
  await drained;
  t.true(text.trimEnd().endsWith("data: [DONE]"), "the in-flight stream finished");
  t.regex(text, /tok19/);
  const after = await fetch(`${gateway.url}/healthz`).then(
    (r) => r.status,
    () => "refused" as const,
  );
  t.not(after, 200, "the listener is closed");
});
