import type { GatewayError } from "../core/errors.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { StreamTextFilter } from "../core/pipeline.js";
import { OUTPUT_DELTAS, OUTPUT_DONES, type RealtimeEvent } from "./realtime-events.js";

/** One response of a realtime session as the output guardrails follow it. */
export interface ResponseState {
  call: InferenceCall;
  /** One stream filter per content part (item, content index, text or transcript). */
  filters: Map<string, StreamTextFilter>;
  /** What each part has released to the client so far (the `*.done` events carry it). */
  emitted: Map<string, string>;
  blocked: boolean;
}

/**
 * Runs one output text event (`response.text.delta|done`, `response.audio_transcript.delta|done`)
 * through its part's stream filter: the events to send to the client instead (a held tail is
 * flushed as a delta before its `done`), or the refusal that blocks the response.
 */
export function guardOutputEvent(
  state: ResponseState,
  event: RealtimeEvent,
  type: string,
  openFilter: () => StreamTextFilter,
): { send: string[]; refusal?: GatewayError } {
  if (state.blocked) return { send: [] };
  const part = `${String(event.item_id)}:${String(event.content_index)}:${type.replace(/\.(delta|done)$/, "")}`;
  let filter = state.filters.get(part);
  if (!filter) {
    filter = openFilter();
    state.filters.set(part, filter);
  }
  const release = (text: string) => state.emitted.set(part, (state.emitted.get(part) ?? "") + text);
  const deltaField = OUTPUT_DELTAS[type];
  if (deltaField) {
    const r = filter.push(String(event[deltaField] ?? ""));
    if (r.refusal) return { send: [], refusal: r.refusal };
    if (r.emit.length === 0) return { send: [] };
    release(r.emit);
    return { send: [JSON.stringify({ ...event, [deltaField]: r.emit })] };
  }
  const doneField = OUTPUT_DONES[type] as string;
  const r = filter.end();
  if (r.refusal) return { send: [], refusal: r.refusal };
  const send: string[] = [];
  if (r.emit.length > 0) {
    release(r.emit);
    send.push(
      JSON.stringify({
        type: type.replace(/\.done$/, ".delta"),
        event_id: `${String(event.event_id ?? "event")}_held`,
        response_id: event.response_id,
        item_id: event.item_id,
        output_index: event.output_index,
        content_index: event.content_index,
        delta: r.emit,
      }),
    );
  }
  send.push(JSON.stringify({ ...event, [doneField]: state.emitted.get(part) ?? "" }));
  return { send };
}
