import { RegExpParser } from "@eslint-community/regexpp";
import type { AST } from "@eslint-community/regexpp";

/**
 * For a streamed text and a custom regex rule: where the text's tail could still be the start of a
 * match (JavaScript has no partial matching). The rule's pattern is rewritten into a pattern that
 * matches every prefix of every string the rule matches, anchored at the end of the text; the
 * leftmost place where it matches the whole tail is where the held text must start.
 *
 * prefix(c) = c?; prefix(A|B) = prefix(A)|prefix(B); prefix(A B) = prefix(A) | A prefix(B);
 * prefix(A{m,n}) = A* prefix(A) (a superset: the count is not checked).
 * Assertions (^, $, \b, lookarounds) are dropped, which only makes the language larger: the hold is
 * never shorter than the exact one, at worst longer. Capturing groups become plain groups.
 */

const PARSER = new RegExpParser({ ecmaVersion: 2025 });
/** A match of the rewritten pattern is looked for in at most this many trailing characters. */
const MAX_TAIL = 512;

type Rewritten = { whole: string; prefix: string };

function group(source: string): string {
  return `(?:${source})`;
}

function alternatives(list: readonly AST.Alternative[]): Rewritten {
  const rewritten = list.map(sequence);
  return {
    whole: group(rewritten.map((r) => r.whole).join("|")),
    prefix: group(rewritten.map((r) => r.prefix).join("|")),
  };
}

/** prefix(e1 e2 ... en) = p1 | e1 (p2 | e2 (p3 | ...)), built from the end. */
function sequence(alternative: AST.Alternative): Rewritten {
  const elements = alternative.elements.map(element);
  let prefix = "";
  for (let i = elements.length - 1; i >= 0; i--) {
    const e = elements[i] as Rewritten;
    prefix = i === elements.length - 1 ? e.prefix : group(`${e.prefix}|${e.whole}${prefix}`);
  }
  return { whole: elements.map((e) => e.whole).join(""), prefix: prefix === "" ? "" : prefix };
}

function element(node: AST.Element): Rewritten {
  switch (node.type) {
    case "Assertion":
      return { whole: "", prefix: "" };
    case "Group": {
      const inner = alternatives(node.alternatives);
      if (node.modifiers === null) return inner;
      // (?i:...) keeps its modifiers around both forms.
      const open = `(?${node.modifiers.raw}:`;
      return { whole: `${open}${inner.whole})`, prefix: `${open}${inner.prefix})` };
    }
    case "CapturingGroup":
      return alternatives(node.alternatives);
    case "Quantifier": {
      const inner = element(node.element);
      if (node.max === 0 || inner.whole === "") return { whole: "", prefix: "" };
      const quantifier = node.raw.slice(node.element.raw.length);
      const max = node.max === Number.POSITIVE_INFINITY ? "" : String(node.max);
      // One character repeated: any count up to the maximum (no ambiguous A*A? to backtrack on).
      if (inner.prefix === `${group(inner.whole)}?`)
        return {
          whole: `${group(inner.whole)}${quantifier}`,
          prefix: `${group(inner.whole)}{0,${max}}`,
        };
      return {
        whole: `${group(inner.whole)}${quantifier}`,
        prefix: `${group(inner.whole)}*${group(inner.prefix)}`,
      };
    }
    case "Backreference":
      return { whole: "[\\s\\S]*", prefix: "[\\s\\S]*" };
    default:
      // A single character, a character class or set: the whole or nothing of it.
      return { whole: node.raw, prefix: `${group(node.raw)}?` };
  }
}

export class RegexPrefixHold {
  private readonly tail: RegExp;

  constructor(pattern: string, flags: string) {
    const ast = PARSER.parsePattern(pattern, 0, pattern.length, {
      unicode: flags.includes("u"),
      unicodeSets: flags.includes("v"),
    });
    const { prefix } = alternatives(ast.alternatives);
    // Anchored at the end of the text, never at a line end: the m flag is left out.
    const kept = [...flags].filter((f) => "isuv".includes(f)).join("");
    this.tail = new RegExp(`${prefix}(?![\\s\\S])`, kept);
  }

  /** The earliest index >= from where text's tail may still be (part of) a match; else length. */
  holdFrom(text: string, from: number): number {
    const start = Math.max(from, text.length - MAX_TAIL);
    if (start >= text.length) return text.length;
    const m = this.tail.exec(text.slice(start));
    if (m === null || m[0].length === 0) return text.length;
    return start + m.index;
  }
}

/** Rules are compiled once and streamed many times: one rewritten pattern per pattern and flags. */
const CACHE = new Map<string, Pick<RegexPrefixHold, "holdFrom">>();
const CACHE_SIZE = 1000;

/** Holds everything (up to the scanner's maxHold): for a pattern the parser cannot read. */
const HOLD_ALL = { holdFrom: (_text: string, from: number) => from };

export function regexPrefixHold(pattern: string, flags: string): Pick<RegexPrefixHold, "holdFrom"> {
  const key = `${flags}/${pattern}`;
  let hold: Pick<RegexPrefixHold, "holdFrom"> | undefined = CACHE.get(key);
  if (hold === undefined) {
    try {
      hold = new RegexPrefixHold(pattern, flags);
    } catch {
      // Every rule compiled as a JavaScript regex; a syntax regexpp does not know yet is held
      // whole rather than released in part.
      hold = HOLD_ALL;
    }
    if (CACHE.size >= CACHE_SIZE) CACHE.delete(CACHE.keys().next().value as string);
    CACHE.set(key, hold);
  }
  return hold;
}
