import { GatewayError } from "../../core/errors.js";
import type { InferenceCall } from "../../core/inference-call.js";
import type { StreamFilterResult, StreamPart, StreamTextFilter } from "../../core/pipeline.js";
import { isPiiEntity } from "../pii/entities.js";
import {
  longestPlaceholder,
  placeholderFor,
  restorePlaceholders,
  type PlaceholderMap,
} from "../pii/redact.js";
import { placeholderRestoreScan } from "../pii/stream-scan.js";
import { evaluateOutput } from "../policy/evaluate.js";
import { builtInDetectors, type GuardrailDetectors } from "../policy/guardrail-detectors.js";
import type { GuardrailPolicy } from "../policy/policy-schema.js";
import type { CompiledRule } from "../rules/compile-rule.js";
import { KeywordPrefixes, placeholderHoldFrom, valueHoldFrom } from "../stream/hold-back.js";
import {
  IncrementalScanner,
  type ScanResult,
  type ScanSpan,
} from "../stream/incremental-scanner.js";
import { LastTextPii } from "../stream/last-text-pii.js";
import { LowLatencyScanner } from "../stream/low-latency-scanner.js";
import { regexPrefixHold } from "../stream/regex-prefix.js";
import type { GuardConfig } from "./guard-config.js";

/** Regexes used per chunk, compiled once (a literal in a function is a new object per call). */
const SPACE = /\s/u;
const PLACEHOLDER_ENTITY = /^\[([A-Z_]+)_\d+\]$/;

/** Buffered mode: the longest value caught whole across chunk boundaries. */
const STREAM_WINDOW = 256;
/**
 * Low latency: whole-text checks run from this many characters on, then on every 25% growth, at
 * most WHOLE_TEXT_MAX_STEP characters apart (so a block comes at most that long after its cause).
 */
const WHOLE_TEXT_STEP = 256;
const WHOLE_TEXT_MAX_STEP = 1024;

interface Scanner {
  push(
    text: string,
    ahead?: string,
    ends?: boolean,
  ): { emit: string; consumed?: number; blocked?: { label: string } };
  end(): { emit: string; consumed?: number; blocked?: { label: string } };
}

type BlockCode =
  "pii_policy_block" | "content_safety_block" | "custom_rule_block" | "prompt_injection_detected";

const BLOCK_CODES: readonly string[] = [
  "pii_policy_block",
  "content_safety_block",
  "custom_rule_block",
  "prompt_injection_detected",
];

function isBlockCode(label: string): label is BlockCode {
  return BLOCK_CODES.includes(label);
}

function copyMap(map: PlaceholderMap): PlaceholderMap {
  return {
    originalByPlaceholder: new Map(map.originalByPlaceholder),
    placeholderByValue: new Map(map.placeholderByValue),
    countByEntity: new Map(map.countByEntity),
  };
}

type HoldFrom = (text: string, from: number) => number;

/** Where a value could still be growing, for every span detector of the policy. */
function holdFor(
  policy: GuardrailPolicy,
  rules: readonly CompiledRule[],
  strict: boolean,
): HoldFrom {
  const output = rules.filter((r) => r.appliesTo("output"));
  const keywords = output
    .filter((r) => r.definition.kind === "keyword")
    .map((r) => new KeywordPrefixes(r.definition.keywords ?? [], r.definition.whole_word ?? true));
  const regexes = output
    .filter((r) => r.definition.kind === "regex")
    .map((r) => regexPrefixHold(r.definition.pattern ?? "", r.definition.flags ?? ""));
  const values = policy.pii.enabled || output.some((r) => r.definition.kind === "pii");
  return (text: string, from: number): number => {
    let at = values ? valueHoldFrom(text, from, { strict }) : text.length;
    for (const k of keywords) at = Math.min(at, k.holdFrom(text, from));
    for (const r of regexes) at = Math.min(at, r.holdFrom(text, from));
    // The space before a held match goes out with it, so chunks keep the upstream's shape.
    while (at < text.length && at > from && SPACE.test(text[at - 1] ?? "")) at--;
    return at;
  };
}

/** What the stream guards of one config share: worked out once per config, not per part. */
interface StreamPlan {
  lowLatency: boolean;
  /** Span detectors (low latency: content safety judges the whole text instead). */
  spanPolicy: GuardrailPolicy;
  /** Whole-text detectors: content safety and max_tokens rules; undefined when there are none. */
  whole: { policy: GuardrailPolicy; rules: CompiledRule[] } | undefined;
  /** Hold-back of prose (content, refusal) and of tool-call arguments. */
  holdProse: HoldFrom;
  holdArguments: HoldFrom;
}

const PLANS = new WeakMap<GuardConfig, StreamPlan>();

function streamPlan(config: GuardConfig): StreamPlan {
  let plan = PLANS.get(config);
  if (plan !== undefined) return plan;
  const { policy, rules } = config;
  const lowLatency = policy.stream_mode !== "buffered";
  const wholeRules = rules.filter(
    (r) => r.appliesTo("output") && r.definition.kind === "max_tokens",
  );
  plan = {
    lowLatency,
    spanPolicy: lowLatency ? { ...policy, safety: { ...policy.safety, enabled: false } } : policy,
    whole:
      policy.safety.enabled || wholeRules.length > 0
        ? { policy: { ...policy, pii: { ...policy.pii, enabled: false } }, rules: wholeRules }
        : undefined,
    holdProse: holdFor(policy, rules, false),
    holdArguments: holdFor(policy, rules, true),
  };
  PLANS.set(config, plan);
  return plan;
}

/** Puts the request's originals back, holding only a "[" that may open a placeholder. */
class PlaceholderRestorer implements Scanner {
  private pending = "";
  constructor(private readonly map: PlaceholderMap) {}
  push(text: string) {
    this.pending += text;
    const cut = placeholderHoldFrom(this.pending, 0, longestPlaceholder(this.map) + 1);
    const out = restorePlaceholders(this.pending.slice(0, cut), this.map);
    this.pending = this.pending.slice(cut);
    return { emit: out };
  }
  end() {
    const out = restorePlaceholders(this.pending, this.map);
    this.pending = "";
    return { emit: out };
  }
}

/**
 * The output guard of one part of a streamed answer (a choice's content or refusal, one tool
 * call's arguments), in the policy's stream_mode: low_latency releases at once every character no
 * detector could still extend (LowLatencyScanner), buffered holds a 256-character window
 * (IncrementalScanner). A block ends the stream with a refusal and records where it stopped.
 */
export function streamGuard(
  call: InferenceCall,
  config: GuardConfig,
  placeholders: PlaceholderMap,
  part: StreamPart,
): StreamTextFilter {
  const { policy, rules } = config;
  const plan = streamPlan(config);
  const { lowLatency, spanPolicy } = plan;
  // The PII of the last text scanned, for the next scan of the same text (last-text-pii.ts).
  const lastPii = new LastTextPii();
  const spanDetectors: Partial<GuardrailDetectors> = {
    pii: (text, entities) => lastPii.detect(text, entities),
  };
  // Low latency scans held text that may still grow: placeholders are allocated in a scratch copy
  // of the request's map, and in the request's map only for values actually released (resolve).
  // Both maps only grow, each entry through placeholderFor: while neither has grown since the
  // copy, the copy is still the request's map and is used again.
  let scratch: PlaceholderMap | undefined;
  let scratchSize = -1;
  const scratchMap = (): PlaceholderMap => {
    const size = placeholders.placeholderByValue.size;
    if (scratch === undefined || size !== scratchSize || scratch.placeholderByValue.size !== size) {
      scratch = copyMap(placeholders);
      scratchSize = size;
    }
    return scratch;
  };
  let lastBlock: { code: string; message: string } | undefined;
  const scan = (text: string): ScanResult => {
    const map = lowLatency ? scratchMap() : placeholders;
    const e = evaluateOutput(spanPolicy, rules, text, {
      placeholders: map,
      detectors: spanDetectors,
    });
    if (e.decision.kind === "block") {
      lastBlock = { code: e.decision.code, message: e.decision.message };
      call.verdicts.push(...e.verdicts.filter((v) => v.action === "block"));
      return { spans: [{ start: 0, end: text.length, label: e.decision.code, block: true }] };
    }
    if (e.decision.kind !== "redact") return { spans: [] };
    const spans: ScanSpan[] = e.decision.placeholders.map((p) => {
      const entity = PLACEHOLDER_ENTITY.exec(p.placeholder)?.[1] ?? "";
      const span: ScanSpan = {
        start: p.start,
        end: p.end,
        label: p.label,
        replacement: p.placeholder,
      };
      if (lowLatency && isPiiEntity(entity))
        span.resolve = () => placeholderFor(placeholders, entity, text.slice(p.start, p.end));
      return span;
    });
    return { spans };
  };
  const whole = plan.whole;
  // The safety classifiers mask the text's identifiers: found already when the span scan has just
  // scanned the same text.
  const wholeDetectors: Partial<GuardrailDetectors> = {
    safety: (text, threshold, categories, identifiers, views, subject) =>
      builtInDetectors.safety(
        text,
        threshold,
        categories,
        identifiers ?? lastPii.identifiersOf(text),
        views,
        subject,
      ),
  };
  const wholeText =
    whole === undefined
      ? undefined
      : (text: string) => {
          const e = evaluateOutput(whole.policy, whole.rules, text, {
            placeholders,
            detectors: wholeDetectors,
          });
          if (e.decision.kind !== "block") return undefined;
          lastBlock = { code: e.decision.code, message: e.decision.message };
          call.verdicts.push(...e.verdicts.filter((v) => v.action === "block"));
          return e.decision.code;
        };
  const guard: Scanner = lowLatency
    ? new LowLatencyScanner({
        scan,
        holdFrom: part.field === "arguments" ? plan.holdArguments : plan.holdProse,
        wholeText,
        wholeTextStep: WHOLE_TEXT_STEP,
        wholeTextMaxStep: WHOLE_TEXT_MAX_STEP,
      })
    : new IncrementalScanner({ window: STREAM_WINDOW, scan });
  const restore: Scanner | undefined = !policy.pii.restore_in_response
    ? undefined
    : policy.stream_mode === "buffered"
      ? new IncrementalScanner({ window: 64, scan: placeholderRestoreScan(placeholders) })
      : new PlaceholderRestorer(placeholders);

  let refusal: GatewayError | undefined;
  let released = 0;
  const blocked = (label: string): StreamFilterResult => {
    if (refusal === undefined) {
      const code = isBlockCode(label) ? label : "content_safety_block";
      refusal = new GatewayError(
        code,
        `the response was stopped by a guardrail on the model's output: ${lastBlock?.message ?? label}`,
      );
      call.streamStop ??= {
        choice: part.choice,
        field: part.field,
        ...(part.tool === undefined ? {} : { tool: part.tool }),
        releasedChars: released,
        code,
      };
    }
    return { emit: "", refusal };
  };
  return {
    push(text, ahead, ends) {
      const g = guard.push(text, ahead, ends);
      if (g.blocked) return blocked(g.blocked.label);
      released = g.consumed ?? released;
      return { emit: restore ? restore.push(g.emit).emit : g.emit, consumed: released };
    },
    end() {
      const g = guard.end();
      if (g.blocked) return blocked(g.blocked.label);
      released = g.consumed ?? released;
      if (!restore) return { emit: g.emit, consumed: released };
      return { emit: restore.push(g.emit).emit + restore.end().emit, consumed: released };
    },
  };
}
