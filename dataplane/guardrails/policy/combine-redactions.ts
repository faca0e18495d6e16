/**
 * Applies the redactions of several checks (the PII policy and custom rules) to one text in one
 * pass. Overlaps keep the earlier span, then the longer one. PII values get the request's
 * reversible "[ENTITY_N]" placeholders; rule matches get the rule's "[RULE_<NAME>]".
 */
import type { PiiEntity } from "../pii/entities.js";
import { placeholderFor, type PlaceholderMap } from "../pii/redact.js";

export interface RedactionSpan {
  start: number;
  end: number;
  /** The entity type for PII (numbered, reversible placeholder)... */
  entity_type?: PiiEntity;
  /** ...else the fixed placeholder of the rule. */
  placeholder?: string;
  /** What produced it, for evidence: an entity type or "rule:<id>". */
  label: string;
}

/** One replacement made; spans refer to the original text. Never the value. */
export interface PlaceholderUse {
  placeholder: string;
  start: number;
  end: number;
  label: string;
}

export function combineRedactions(
  text: string,
  spans: readonly RedactionSpan[],
  map: PlaceholderMap,
): { text: string; placeholders: PlaceholderUse[] } {
  const ordered = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  const placeholders: PlaceholderUse[] = [];
  let at = 0;
  for (const span of ordered) {
    if (span.start < at || span.end <= span.start || span.end > text.length) continue;
    const value = text.slice(span.start, span.end);
    const placeholder =
      span.entity_type !== undefined
        ? placeholderFor(map, span.entity_type, value)
        : (span.placeholder ?? "[REDACTED]");
    parts.push(text.slice(at, span.start), placeholder);
    placeholders.push({ placeholder, start: span.start, end: span.end, label: span.label });
    at = span.end;
  }
  parts.push(text.slice(at));
  return { text: parts.join(""), placeholders };
}
