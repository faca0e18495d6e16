/**
 * The benchmark's upstream: the fake OpenAI-compatible upstream (a test double) in its own process,
 * with no request log. Prints {"url": "..."} once listening; stops on SIGTERM.
 */
import { startFakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import { announceReady } from "./child-control.js";
import { FAST_MODEL, MODEL_BEHAVIOURS, PACED_MODEL } from "../bench-models.js";

const upstream = await startFakeUpstream({
  models: [FAST_MODEL, PACED_MODEL],
  modelBehaviours: MODEL_BEHAVIOURS,
  recordRequests: false,
});
announceReady({ url: upstream.url }, () => upstream.close());
