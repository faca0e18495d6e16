/**
 * Conformance of chat completions with the official `openai` SDK, under the default guardrail
 * policy and with guardrails off: both must observe exactly what the (fake) upstream sent.
 */
import test from "ava";
import type OpenAI from "openai";
import { both, PROSE_PIECES, startConformance, type Conformance } from "./support/conformance.js";
import { call } from "./support/test-app.js";

let conf: Conformance;
const model = "conf-chat";
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "When?" }];
const weather: OpenAI.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

test.before(async () => {
  conf = await startConformance();
});
test.after.always(async () => {
  await conf?.close();
});

type Chunk = OpenAI.ChatCompletionChunk;

async function chunksOf(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

/** What a chunk says, without the ids and times that differ per request. */
function shape(chunk: Chunk): unknown {
  const { id: _id, created: _created, ...rest } = chunk;
  return rest;
}

test.serial(
  "SDK conformance: the default-policy customer really guards output (low latency), the other has guardrails off",
  async (t) => {
    const policyOf = async (key: string) =>
      (await call(conf.gateway.url, "GET", "/api/v1/guardrails/policy", key)).json.policy as {
        pii: { enabled: boolean };
        safety: { enabled: boolean };
        stream_mode: string;
      };
    t.like(await policyOf(conf.keys.default), {
      pii: { enabled: true },
      safety: { enabled: true },
      stream_mode: "low_latency",
    });
    t.like(await policyOf(conf.keys.off), { pii: { enabled: false }, safety: { enabled: false } });
  },
);

test.serial("SDK conformance (fake upstream): chat JSON", async (t) => {
  const result = await both(t, conf, async (client) => {
    conf.upstream.script.next({ chunks: PROSE_PIECES });
    const res = await client.chat.completions.create({ model, messages });
    t.true(res.id.startsWith("chatcmpl-fake"), "the upstream's id");
    return { choices: res.choices, usage: res.usage, fp: res.system_fingerprint };
  });
  t.is(result.choices[0]?.message.content, PROSE_PIECES.join(""));
  t.is(result.choices[0]?.finish_reason, "stop");
});

test.serial(
  "SDK conformance (fake upstream): create({stream:true}) relays every chunk as sent",
  async (t) => {
    const chunks = await both(t, conf, async (client) => {
      conf.upstream.script.next({ chunks: PROSE_PIECES, paceMs: 2 });
      const stream = await client.chat.completions.create({ model, messages, stream: true });
      const got = await chunksOf(stream);
      t.true(
        got.every((c) => c.id === got[0]?.id),
        "one id throughout",
      );
      return got.map(shape);
    });
    const typed = chunks as Chunk[];
    t.deepEqual(typed[0]?.choices[0]?.delta, { role: "assistant", content: "" });
    const contents = typed.map((c) => c.choices[0]?.delta.content).filter((c) => c);
    t.deepEqual(contents, PROSE_PIECES, "token-sized chunks, none merged, split or added");
    t.is(typed.at(-1)?.choices[0]?.finish_reason, "stop");
    t.false(
      typed.some((c) => "usage" in c),
      "no usage key the client did not ask for",
    );
  },
);

test.serial(
  "SDK conformance (fake upstream): the .stream() helper sees one content.delta per upstream chunk",
  async (t) => {
    const seen = await both(t, conf, async (client) => {
      conf.upstream.script.next({ chunks: PROSE_PIECES, paceMs: 2 });
      const runner = client.chat.completions.stream({ model, messages });
      let deltas = 0;
      let done = "";
      runner.on("content.delta", () => (deltas += 1));
      runner.on("content.done", (e) => (done = e.content));
      const final = await runner.finalChatCompletion();
      return { deltas, done, final: final.choices[0]?.message.content };
    });
    t.is(seen.deltas, PROSE_PIECES.length);
    t.is(seen.done, PROSE_PIECES.join(""));
    t.is(seen.final, PROSE_PIECES.join(""));
  },
);

test.serial(
  "SDK conformance (fake upstream): include_usage gives one usage chunk at the end",
  async (t) => {
    const chunks = await both(t, conf, async (client) => {
      conf.upstream.script.next({ chunks: PROSE_PIECES });
      const stream = await client.chat.completions.create({
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      return (await chunksOf(stream)).map(shape) as Chunk[];
    });
    const last = chunks.at(-1);
    t.deepEqual(last?.choices, []);
    t.true((last?.usage?.total_tokens ?? 0) > 0);
  },
);

test.serial(
  "SDK conformance (fake upstream): tools and parallel tools, JSON and streamed",
  async (t) => {
    const toolCalls = [
      { name: "get_weather", arguments: ['{"ci', 'ty": "Oslo"}'] },
      { name: "get_weather", arguments: ['{"city"', ': "Lima"}'] },
    ];
    const result = await both(t, conf, async (client) => {
      conf.upstream.script.next({ toolCalls });
      const json = await client.chat.completions.create({ model, messages, tools: [weather] });
      conf.upstream.script.next({ toolCalls, paceMs: 2 });
      const streamed = await client.chat.completions
        .stream({ model, messages, tools: [weather] })
        .finalChatCompletion();
      const calls = (c: OpenAI.ChatCompletion) =>
        (c.choices[0]?.message.tool_calls ?? []).map((tc) =>
          tc.type === "function" ? [tc.id, tc.function.name, tc.function.arguments] : [],
        );
      return {
        json: calls(json),
        streamed: calls(streamed),
        finish: json.choices[0]?.finish_reason,
      };
    });
    const expected = [
      ["call_fake_0", "get_weather", '{"city": "Oslo"}'],
      ["call_fake_1", "get_weather", '{"city": "Lima"}'],
    ];
    t.deepEqual(result.json, expected);
    t.deepEqual(result.streamed, expected);
    t.is(result.finish, "tool_calls");
  },
);

test.serial(
  "SDK conformance (fake upstream): runTools calls the function and finishes",
  async (t) => {
    const answer = await both(t, conf, async (client) => {
      conf.upstream.script
        .next({ toolCalls: [{ name: "get_weather", arguments: ['{"city": "Oslo"}'] }] })
        .next({ chunks: ["It", " is", " mild", "."] });
      const cities: string[] = [];
      const runner = client.chat.completions.runTools({
        model,
        messages,
        tools: [
          {
            type: "function",
            function: {
              name: "get_weather",
              description: "The weather in a city",
              parameters: weather.function.parameters ?? {},
              parse: (s: string) => JSON.parse(s) as { city: string },
              function: (args: { city: string }) => {
                cities.push(args.city);
                return "mild";
              },
            },
          },
        ],
      });
      return { content: await runner.finalContent(), cities };
    });
    t.deepEqual(answer, { content: "It is mild.", cities: ["Oslo"] });
  },
);

test.serial(
  "SDK conformance (fake upstream): n=2 streams each choice on its own index",
  async (t) => {
    const chunks = await both(t, conf, async (client) => {
      conf.upstream.script.next({
        choices: [
          [" first", " answer"],
          [" second", " reply"],
        ],
      });
      const stream = await client.chat.completions.create({ model, messages, n: 2, stream: true });
      return (await chunksOf(stream)).map(shape) as Chunk[];
    });
    const textOf = (index: number) =>
      chunks
        .flatMap((c) => c.choices)
        .filter((c) => c.index === index)
        .map((c) => c.delta.content ?? "")
        .join("");
    t.is(textOf(0), " first answer");
    t.is(textOf(1), " second reply");
    for (const index of [0, 1])
      t.is(
        chunks.flatMap((c) => c.choices).filter((c) => c.index === index && c.finish_reason).length,
        1,
      );
  },
);

test.serial("SDK conformance (fake upstream): logprobs travel with their text", async (t) => {
  const chunks = await both(t, conf, async (client) => {
    conf.upstream.script.next({ chunks: PROSE_PIECES });
    const stream = await client.chat.completions.create({
      model,
      messages,
      stream: true,
      logprobs: true,
    });
    return (await chunksOf(stream)).map(shape) as Chunk[];
  });
  const content = chunks.map((c) => c.choices[0]).filter((c) => c?.delta.content);
  t.is(content.length, PROSE_PIECES.length);
  for (const c of content) t.is(c?.logprobs?.content?.[0]?.token, c?.delta.content ?? undefined);
});

test.serial(
  "SDK conformance (fake upstream): response_format json_schema and parse()",
  async (t) => {
    const parsed = await both(t, conf, async (client) => {
      conf.upstream.script.next({ chunks: ['{"answer"', ": 42", "}"] });
      const res = await client.chat.completions.parse({
        model,
        messages,
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "answer",
            strict: true,
            schema: {
              type: "object",
              properties: { answer: { type: "number" } },
              required: ["answer"],
              additionalProperties: false,
            },
          },
        },
      });
      return res.choices[0]?.message.parsed;
    });
    t.deepEqual(parsed, { answer: 42 });
  },
);
