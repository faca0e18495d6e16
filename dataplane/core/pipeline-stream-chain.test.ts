import test from "ava";
import type { InferenceCall } from "./inference-call.js";
import {
  passThroughStage,
  Pipeline,
  type PipelineStage,
  type StreamTextFilter,
} from "./pipeline.js";

const call = {} as InferenceCall;

/** A stage whose stream filter records what it is pushed and emits `rewrite(text)`. */
function recording(name: string, rewrite: (text: string) => string) {
  const pushed: [string, string | undefined, boolean | undefined][] = [];
  const stage: PipelineStage = {
    name,
    openStreamFilter: (): StreamTextFilter => ({
      push: (text, ahead, ends) => (pushed.push([text, ahead, ends]), { emit: rewrite(text) }),
      end: () => ({ emit: "" }),
    }),
  };
  return { stage, pushed };
}

function pipelineWith(cache: PipelineStage, guard: PipelineStage): Pipeline {
  return new Pipeline({
    limit: passThroughStage("limit"),
    guardRequest: passThroughStage("guard_request"),
    route: passThroughStage("route"),
    cache,
    guardResponse: guard,
    meter: passThroughStage("meter"),
    audit: passThroughStage("audit"),
  });
}

test("the text ahead and whether the read ends the part reach the next filter while the text is unchanged", (t) => {
  const first = recording("cache", (text) => text);
  const second = recording("guard_response", (text) => text);
  const filter = pipelineWith(first.stage, second.stage).openStreamFilter(call);
  t.deepEqual(filter.push("a", "bc", true), { emit: "a" });
  t.deepEqual(first.pushed, [["a", "bc", true]]);
  t.deepEqual(second.pushed, [["a", "bc", true]]);
});

test("after a filter rewrote the text, the next is told neither what is ahead nor that the part ends", (t) => {
  const first = recording("cache", (text) => text.toUpperCase());
  const second = recording("guard_response", (text) => text);
  const filter = pipelineWith(first.stage, second.stage).openStreamFilter(call);
  t.deepEqual(filter.push("a", "bc", true), { emit: "A" });
  t.deepEqual(second.pushed, [["A", undefined, undefined]]);
});
