import { GatewayError } from "./errors.js";
import { CallState } from "./call-state.js";
import type { InferenceCall } from "./inference-call.js";
import { INFERENCE_ROLES, requireRole } from "./permissions.js";

/** One filtered result: text to emit now, or a refusal that ends the stream. */
export interface StreamFilterResult {
  emit: string;
  refusal?: GatewayError;
  /** Characters of the original text released so far (for logprobs); absent: all of it. */
  consumed?: number;
}

/** Rewrites streamed completion text as it passes (guardrails on output). */
export interface StreamTextFilter {
  /**
   * `ahead`: the rest of this part's text that came in the same read from the upstream, to be
   * pushed next, unchanged. A filter may look at it (one scan for text that arrived together) but
   * must not release any of it before it is pushed. `ends`: the part's text ends with `ahead`
   * (the read also carries the chunk that finishes it), so no text comes after it.
   */
  push(text: string, ahead?: string, ends?: boolean): StreamFilterResult;
  end(): StreamFilterResult;
}

/** Which text of a streamed answer a filter sees: one choice's content, refusal or tool call. */
export interface StreamPart {
  choice: number;
  field: "content" | "refusal" | "arguments";
  /** The tool call's index, for arguments. */
  tool?: number;
}

/**
 * One stage of the policy pipeline. Every hook is optional. `beforeForward` may refuse by throwing
 * a GatewayError, or rewrite `call.body`; `afterCall` runs once for every call, whatever its
 * outcome, and must not throw.
 */
export interface PipelineStage {
  readonly name: string;
  beforeForward?(call: InferenceCall): Promise<void>;
  transformResponse?(
    call: InferenceCall,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  openStreamFilter?(call: InferenceCall, part: StreamPart): StreamTextFilter | undefined;
  afterCall?(call: InferenceCall): Promise<void>;
}

/**
 * The order of the pipeline, in one place. Authentication happens before (it needs the transport's
 * headers); forwarding happens between the request and response halves (by us for REST, by Envoy
 * for ext_proc).
 */
export interface PipelineStages {
  limit: PipelineStage;
  guardRequest: PipelineStage;
  route: PipelineStage;
  /** The response cache: a lookup after routing (a hit sets `call.cache`); stores after the call. */
  cache?: PipelineStage;
  guardResponse: PipelineStage;
  meter: PipelineStage;
  audit: PipelineStage;
}

export class Pipeline {
  readonly stages: readonly PipelineStage[];
  /** The stages that have each hook, in order (worked out once: a call awaits only real hooks). */
  private readonly admitting: readonly PipelineStage[];
  private readonly transforming: readonly PipelineStage[];
  private readonly filtering: readonly PipelineStage[];
  private readonly finishing: readonly PipelineStage[];
  /** Calls admitted and not yet finished, each counted once (marked in the call's own state). */
  private readonly running = new CallState<true>("in progress");
  private runningCount = 0;

  constructor(s: PipelineStages) {
    // authenticate -> limit -> classify and guard the request -> route -> cache lookup
    //   -> [forward, or serve the cached response] -> guard the response -> meter -> audit
    const cache = s.cache ? [s.cache] : [];
    this.stages = [s.limit, s.guardRequest, s.route, ...cache, s.guardResponse, s.meter, s.audit];
    this.admitting = this.stages.filter((stage) => stage.beforeForward);
    this.transforming = this.stages.filter((stage) => stage.transformResponse);
    this.filtering = this.stages.filter((stage) => stage.openStreamFilter);
    this.finishing = this.stages.filter((stage) => stage.afterCall);
  }

  /** The request half: every stage's beforeForward, in order. Throws the first refusal. */
  async admit(call: InferenceCall): Promise<void> {
    if (!this.running.has(call)) {
      this.running.set(call, true);
      this.runningCount += 1;
    }
    requireRole(call.caller, INFERENCE_ROLES, "call models");
    for (const stage of this.admitting) await stage.beforeForward?.(call);
  }

  /** The non-streamed response through every stage's transform, in order. */
  async transformResponse(
    call: InferenceCall,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    let out = body;
    for (const stage of this.transforming)
      if (stage.transformResponse) out = await stage.transformResponse(call, out);
    return out;
  }

  /** The stream filters of every stage for one part of the answer, chained in order. */
  openStreamFilter(
    call: InferenceCall,
    part: StreamPart = { choice: 0, field: "content" },
  ): StreamTextFilter {
    const filters: StreamTextFilter[] = [];
    for (const stage of this.filtering) {
      const filter = stage.openStreamFilter?.(call, part);
      if (filter) filters.push(filter);
    }
    return chain(filters);
  }

  /**
   * Calls between admit and the end of finish, in this process. A call admitted and never
   * finished would stay counted; every adapter finishes what it admits (refusals included).
   */
  get callsInProgress(): number {
    return this.runningCount;
  }

  /** Metering and audit: runs every stage's afterCall; a failing stage does not stop the others. */
  async finish(call: InferenceCall): Promise<void> {
    const failures: unknown[] = [];
    for (const stage of this.finishing) {
      try {
        await stage.afterCall?.(call);
      } catch (err) {
        failures.push(err);
      }
    }
    if (this.running.delete(call)) this.runningCount -= 1;
    const first = failures[0];
    if (first !== undefined) {
      throw first instanceof GatewayError
        ? first
        : new GatewayError("internal_error", "post-call processing failed", { cause: first });
    }
  }
}

/** A stage that does nothing, for parts of the pipeline not configured. */
export function passThroughStage(name: string): PipelineStage {
  return { name };
}

function chain(filters: StreamTextFilter[]): StreamTextFilter {
  if (filters.length === 0) return { push: (text) => ({ emit: text }), end: () => ({ emit: "" }) };
  if (filters.length === 1) return filters[0] as StreamTextFilter;
  return {
    push(text, ahead, ends) {
      let current = text;
      let rest = ahead;
      let last = ends;
      // What the filter that holds text back (the output guard) has released of the original.
      let consumed: number | undefined;
      for (const f of filters) {
        const r = f.push(current, rest, last);
        if (r.refusal) return r;
        // The text ahead is still what the next filter will be pushed only if this one passed
        // its text through unchanged.
        if (r.emit !== current) {
          rest = undefined;
          last = undefined;
        }
        current = r.emit;
        consumed = r.consumed ?? consumed;
      }
      return consumed === undefined ? { emit: current } : { emit: current, consumed };
    },
    end() {
      let carry = "";
      for (const f of filters) {
        const pushed = carry ? f.push(carry) : { emit: "" };
        if (pushed.refusal) return pushed;
        const ended = f.end();
        if (ended.refusal) return ended;
        carry = pushed.emit + ended.emit;
      }
      return { emit: carry };
    },
  };
}
