/**
 * The benchmark's upstream: the fake OpenAI-compatible upstream (a test double) in its own process,
 * with no request log. Prints {"url": "..."} once listening; stops on SIGTERM.
 */
import { startFakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import { FAST_MODEL, MODEL_BEHAVIOURS, PACED_MODEL } from "../bench-models.js";

const upstream = await startFakeUpstream({
  models: [FAST_MODEL, PACED_MODEL],
  modelBehaviours: MODEL_BEHAVIOURS,
  recordRequests: false,
});
process.stdout.write(`${JSON.stringify({ url: upstream.url })}\n`);
process.once("SIGTERM", () => {
  upstream.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
