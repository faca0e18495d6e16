/**
 * Turns a validated rule definition into something that evaluates text: regex (windowed, after
 * the backtracking checks), keywords (one pass), PII entity set (the PII detectors), max tokens
 * (o200k count). Evidence and labels never carry the matched text.
 */
import { GatewayError } from "../../core/errors.js";
import { countTextTokens } from "../../upstream/usage.js";
import { detectPii } from "../pii/detect.js";
import type { PiiEntity, PiiMatch } from "../pii/entities.js";
import { createPlaceholderMap, placeholderFor, type PlaceholderMap } from "../pii/redact.js";
import type { Verdict } from "../verdict.js";
import { KeywordMatcher } from "./keyword-matcher.js";
import { checkRegexSafety } from "./regex-safety.js";
import type { RuleDefinition, RuleDirection } from "./rule-definition.js";
import { WindowedRegex } from "./windowed-match.js";

export interface RuleMatch {
  start: number;
  end: number;
  /** The rule's name for regex and keyword rules, the entity type for PII rules. */
  label: string;
  entity_type?: PiiEntity;
}

export interface RuleEvaluation {
  verdict: Verdict;
  matches: RuleMatch[];
  /** The text with every match replaced by its placeholder; only for action redact with matches. */
  redactedText?: string;
  /** For max_tokens rules: the counted tokens. */
  tokens?: number;
}

export interface EvaluateRuleOptions {
  /** The request's PII placeholder map, so a PII rule numbers placeholders like the PII check. */
  placeholders?: PlaceholderMap;
}

export interface CompiledRule {
  readonly definition: RuleDefinition;
  /** The verdict's check: "rule:<id>" (the stored rule id, else the name). */
  readonly check: string;
  /** The placeholder of a regex or keyword match, e.g. "[RULE_PROJECT_NAMES]". */
  readonly placeholder: string;
  appliesTo(direction: "input" | "output"): boolean;
  evaluate(text: string, options?: EvaluateRuleOptions): RuleEvaluation;
}

/** "[RULE_<NAME>]" with the name upper-cased and reduced to A-Z, 0-9 and "_" (at most 40). */
export function rulePlaceholder(name: string): string {
  const slug = name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40)
    .replace(/_+$/, "");
  return slug.length === 0 ? "[RULE]" : `[RULE_${slug}]`;
}

function appliesTo(setting: RuleDirection, direction: "input" | "output"): boolean {
  return setting === "both" || setting === direction;
}

/** Replaces each (sorted, non-overlapping) match with its placeholder. */
function redactMatches(
  text: string,
  matches: readonly RuleMatch[],
  placeholder: string,
  map: PlaceholderMap,
): string {
  const parts: string[] = [];
  let at = 0;
  for (const match of matches) {
    const value = text.slice(match.start, match.end);
    parts.push(text.slice(at, match.start));
    parts.push(match.entity_type ? placeholderFor(map, match.entity_type, value) : placeholder);
    at = match.end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

type Matcher = (text: string) => { matches: RuleMatch[]; tokens?: number };

function matcherFor(definition: RuleDefinition): Matcher {
  const { kind, name } = definition;
  if (kind === "regex") {
    const pattern = definition.pattern ?? "";
    const flags = definition.flags ?? "";
    const safety = checkRegexSafety(pattern, flags);
    if (!safety.ok)
      throw new GatewayError("validation_failed", `rule "${name}": ${safety.reason}`, {
        detail: [{ loc: ["body", "pattern"], msg: safety.reason, type: "value_error" }],
      });
    const regex = new WindowedRegex(pattern, flags);
    return (text) => ({
      matches: regex.find(text).map((span) => ({ ...span, label: name })),
    });
  }
  if (kind === "keyword") {
    const matcher = new KeywordMatcher(definition.keywords ?? [], definition.whole_word ?? true);
    return (text) => ({
      matches: matcher.find(text).map((hit) => ({ start: hit.start, end: hit.end, label: name })),
    });
  }
  if (kind === "pii") {
    const entities = definition.entities ?? [];
    return (text) => ({
      matches: detectPii(text, { entities }).map((m: PiiMatch) => ({
        start: m.start,
        end: m.end,
        label: m.entity_type,
        entity_type: m.entity_type,
      })),
    });
  }
  const limit = definition.max_tokens ?? Number.POSITIVE_INFINITY;
  return (text) => {
    const tokens = countTextTokens(text);
    return {
      tokens,
      matches: tokens > limit ? [{ start: 0, end: text.length, label: "max_tokens" }] : [],
    };
  };
}

export interface CompileRuleOptions {
  /** The stored rule id; the verdict's check is "rule:<id>" (else "rule:<name>"). */
  id?: string;
}

/** Throws GatewayError validation_failed when a regex fails the backtracking checks. */
export function compileRule(
  definition: RuleDefinition,
  options: CompileRuleOptions = {},
): CompiledRule {
  const match = matcherFor(definition);
  const check = `rule:${options.id ?? definition.name}`;
  const placeholder = rulePlaceholder(definition.name);
  return {
    definition,
    check,
    placeholder,
    appliesTo: (direction) => appliesTo(definition.applies_to, direction),
    evaluate(text, evaluateOptions = {}) {
      const { matches, tokens } = match(text);
      const matched = matches.length > 0;
      const verdict: Verdict = {
        check,
        action: matched ? definition.action : "allow",
        score: matched ? 1 : 0,
        threshold: 1,
        evidence: matches.map((m) => ({ start: m.start, end: m.end, label: m.label })),
      };
      const evaluation: RuleEvaluation = { verdict, matches };
      if (tokens !== undefined) evaluation.tokens = tokens;
      if (matched && definition.action === "redact")
        evaluation.redactedText = redactMatches(
          text,
          matches,
          placeholder,
          evaluateOptions.placeholders ?? createPlaceholderMap(),
        );
      return evaluation;
    },
  };
}
