/**
 * Span-level PII evaluation: precision and recall per entity type on a JSON-lines file of
 * {text, spans: [{entity_type, start, end}]}.
 *
 * Matching rules (both reported):
 * - exact: a prediction is a true positive when a gold span of the same type has the same start
 *   and end. This is the headline number.
 * - overlap: a prediction counts when it overlaps any gold span of the same type; a gold span is
 *   found when any prediction of its type overlaps it (precision and recall are computed on the
 *   predictions and the gold spans respectively, so one long prediction over two gold spans
 *   counts once for precision and twice for recall).
 * Gold entity types we do not detect (GPE, DATE_TIME, ORGANIZATION, ...) are ignored; our names
 * are Presidio's, so no mapping is needed beyond ENTITY_ALIASES.
 *
 * Run: npx tsx scripts/eval/pii-eval.ts [file.jsonl]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { detectPii } from "../../dataplane/guardrails/pii/detect.js";
import {
  isPiiEntity,
  PII_ENTITIES,
  type PiiEntity,
} from "../../dataplane/guardrails/pii/entities.js";

export const DEFAULT_PII_EVAL_FILE = new URL(
  "../../../shared/eval/pii_presidio_dev.jsonl",
  import.meta.url,
).pathname;

/** Dataset names that differ from ours. */
const ENTITY_ALIASES: Readonly<Record<string, PiiEntity>> = {
  EMAIL: "EMAIL_ADDRESS",
  PHONE: "PHONE_NUMBER",
  IP: "IP_ADDRESS",
  IBAN: "IBAN_CODE",
  SSN: "US_SSN",
  CREDIT_CARD_NUMBER: "CREDIT_CARD",
  ADDRESS: "STREET_ADDRESS",
  NAME: "PERSON",
};

interface GoldSpan {
  entity_type: string;
  start: number;
  end: number;
}

interface Row {
  text: string;
  spans: GoldSpan[];
}

export interface PiiEvalRow {
  entity: string;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  /** Same type, any overlap. */
  overlap_precision: number;
  overlap_recall: number;
  support: number;
}

export interface PiiEvalResult {
  rows: PiiEvalRow[];
  table: string;
}

function ourEntity(name: string): PiiEntity | undefined {
  const upper = name.toUpperCase();
  if (isPiiEntity(upper)) return upper;
  return ENTITY_ALIASES[upper];
}

function parseRows(path: string): Row[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Row);
}

const ratio = (num: number, den: number): number => (den === 0 ? 1 : num / den);

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  overlapPredHit: number;
  predicted: number;
  overlapGoldHit: number;
  gold: number;
}

function formatTable(rows: readonly PiiEvalRow[]): string {
  const header = [
    "entity",
    "support",
    "tp",
    "fp",
    "fn",
    "precision",
    "recall",
    "P(overlap)",
    "R(overlap)",
  ];
  const body = rows.map((r) => [
    r.entity,
    String(r.support),
    String(r.tp),
    String(r.fp),
    String(r.fn),
    r.precision.toFixed(3),
    r.recall.toFixed(3),
    r.overlap_precision.toFixed(3),
    r.overlap_recall.toFixed(3),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), ...body.map(line)].join("\n");
}

export function evaluatePii(jsonlPath: string): PiiEvalResult {
  const counts = new Map<PiiEntity, Counts>();
  const countsFor = (entity: PiiEntity): Counts => {
    let c = counts.get(entity);
    if (c === undefined) {
      c = { tp: 0, fp: 0, fn: 0, overlapPredHit: 0, predicted: 0, overlapGoldHit: 0, gold: 0 };
      counts.set(entity, c);
    }
    return c;
  };
  for (const row of parseRows(jsonlPath)) {
    const gold = row.spans.flatMap((span) => {
      const entity = ourEntity(span.entity_type);
      return entity === undefined ? [] : [{ entity, start: span.start, end: span.end }];
    });
    const predicted = detectPii(row.text);
    for (const p of predicted) {
      const c = countsFor(p.entity_type);
      const same = gold.filter((g) => g.entity === p.entity_type);
      c.predicted++;
      if (same.some((g) => g.start === p.start && g.end === p.end)) c.tp++;
      else c.fp++;
      if (same.some((g) => g.start < p.end && p.start < g.end)) c.overlapPredHit++;
    }
    for (const g of gold) {
      const c = countsFor(g.entity);
      const same = predicted.filter((p) => p.entity_type === g.entity);
      c.gold++;
      if (!same.some((p) => g.start === p.start && g.end === p.end)) c.fn++;
      if (same.some((p) => g.start < p.end && p.start < g.end)) c.overlapGoldHit++;
    }
  }
  const rows = PII_ENTITIES.filter((entity) => counts.has(entity)).map((entity): PiiEvalRow => {
    const c = countsFor(entity);
    return {
      entity,
      tp: c.tp,
      fp: c.fp,
      fn: c.fn,
      precision: ratio(c.tp, c.tp + c.fp),
      recall: ratio(c.tp, c.tp + c.fn),
      overlap_precision: ratio(c.overlapPredHit, c.predicted),
      overlap_recall: ratio(c.overlapGoldHit, c.gold),
      support: c.gold,
    };
  });
  return { rows, table: formatTable(rows) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const path = process.argv[2] ?? DEFAULT_PII_EVAL_FILE;
  console.log(
    `PII span-level evaluation on ${path}\n(exact = same type and same span; overlap = same type, any overlap)\n`,
  );
  console.log(evaluatePii(path).table);
}
