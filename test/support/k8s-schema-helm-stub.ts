// Render-free checks of Helm templates (Helm cannot be installed here; this is a stand-in, not
// a renderer). It (1) lists every .Values path a template reads, following `$x := .Values.a`
// variables, and (2) turns a template into parseable YAML: control actions ({{ if }}, {{ range }},
// {{ end }}, ...) are dropped, so every branch and one iteration of each loop remain; a value
// path ({{ .Values.a.b }}, {{ $x.b | quote }}) is replaced by its value from values.yaml; any
// other expression becomes the placeholder STUB (on a line of its own: a `x-stub-N: STUB` entry,
// or a `- x-stub-N: STUB` item inside a list).
export type Values = { [key: string]: unknown };

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const CONTROL = /^(if|else|end|range|with|define|block|fail)\b/;
const ASSIGN = /^(\$[A-Za-z_][A-Za-z0-9_]*)\s*:?=\s*(.*)$/;
const PATH = /^(\$[A-Za-z_][A-Za-z0-9_]*|\$?\.Values)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/;

function stripComments(text: string): string {
  return text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, "");
}

/** Resolves "$dp.image.tag" or ".Values.x" to a dotted values path ("dataplane.image.tag"). */
function valuesPath(expr: string, vars: Map<string, string>): string | undefined {
  const m = PATH.exec(expr.trim());
  if (!m) return undefined;
  const [, head = "", rest = ""] = m;
  const base = head.endsWith(".Values") ? "" : vars.get(head);
  if (base === undefined) return undefined;
  return [base, rest.slice(1)].filter((s) => s !== "").join(".");
}

function assignments(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const [, body = ""] of stripComments(text).matchAll(ACTION)) {
    const m = ASSIGN.exec(body);
    if (!m?.[1] || !m[2]) continue;
    const path = valuesPath(m[2], vars);
    if (path !== undefined) vars.set(m[1], path);
  }
  return vars;
}

/** Every values path a template reads (".Values.a.b", "$x.b" with $x := .Values.a, "$.Values.c"). */
export function referencedValues(text: string): string[] {
  const vars = assignments(text);
  const found = new Set<string>();
  for (const [, body = ""] of stripComments(text).matchAll(ACTION)) {
    for (const m of body.matchAll(
      /(\$[A-Za-z_][A-Za-z0-9_]*|\$?\.Values)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g,
    )) {
      const path = valuesPath(`${m[1]}${m[2]}`, vars);
      if (path !== undefined && path !== "") found.add(path);
    }
  }
  return [...found].sort();
}

export function lookup(values: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    return (v as Values)[k];
  }, values);
}

function inline(body: string, vars: Map<string, string>, values: Values): string {
  const [expr = "", ...pipes] = body.split("|").map((s) => s.trim());
  const path = valuesPath(expr, vars);
  const value = path === undefined ? undefined : lookup(values, path);
  const scalar = ["string", "number", "boolean"].includes(typeof value);
  if (!scalar || !pipes.every((p) => p === "quote")) return "STUB";
  return pipes.includes("quote") ? JSON.stringify(String(value)) : String(value);
}

function isControlOnly(line: string): boolean {
  const m = /^\s*\{\{-?\s*([\s\S]*?)\s*-?\}\}\s*$/.exec(line);
  return m !== null && (CONTROL.test(m[1] ?? "") || ASSIGN.test(m[1] ?? ""));
}

/** Is the nearest sibling (same indentation, before or after line i) a list item? */
function siblingIsListItem(lines: string[], i: number, indent: string, step: 1 | -1): boolean {
  for (let j = i + step; j >= 0 && j < lines.length; j += step) {
    const line = lines[j] ?? "";
    if (line.trim() === "" || isControlOnly(line)) continue;
    const own = /^\s*/.exec(line)?.[0].length ?? 0;
    if (own > indent.length) continue;
    return own === indent.length && line.trimStart().startsWith("- ");
  }
  return false;
}

/** The template as parseable YAML text (see the header comment). */
export function stubTemplate(text: string, values: Values): string {
  const vars = assignments(text);
  const lines = stripComments(text).split("\n");
  const out: string[] = [];
  let stub = 0;
  lines.forEach((line, i) => {
    const only = /^(\s*)\{\{-?\s*([\s\S]*?)\s*-?\}\}\s*$/.exec(line);
    if (only) {
      const [, indent = "", body = ""] = only;
      if (CONTROL.test(body) || ASSIGN.test(body)) return;
      const inList =
        siblingIsListItem(lines, i, indent, -1) || siblingIsListItem(lines, i, indent, 1);
      stub += 1;
      out.push(`${indent}${inList ? "- " : ""}x-stub-${stub}: STUB`);
      return;
    }
    out.push(line.replace(ACTION, (_all, body: string) => inline(body, vars, values)));
  });
  return out.join("\n");
}
