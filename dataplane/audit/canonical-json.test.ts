import test from "ava";
import { seededRandom } from "../../test/support/seeded-random.js";
import { canonicalJson } from "./canonical-json.js";

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Canonical JSON as the spec says it, written the plain way (the implementation has fast paths). */
function reference(v: unknown): string {
  if (v === null || typeof v !== "object") {
    return (JSON.stringify(v ?? null) as string | undefined) ?? "undefined";
  }
  if (Array.isArray(v)) return `[${Array.from(v as unknown[], reference).join(",")}]`;
  const o = v as Record<string, unknown>;
  const members = Object.keys(o)
    .sort(byCodeUnit)
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference(o[k])}`);
  return `{${members.join(",")}}`;
}

const NAMES = ["a", "b", "B", "", "10", "9", "é", "😀", "\uff5a", "\ud800", "a b", "~", "seq"];
const STRINGS = ["x", "", 'q"\\', "\n\t\u0001", "\u0000", "\ud800", "\udc00x", "😀é", "\u2028"];
const NUMBERS = [0, -0, 0.1, 1e21, 1e-7, -1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];

/** A random JSON-like value; half of its objects get their members in canonical order. */
function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const r = next();
  if (depth > 5 || r < 0.35) {
    return pick<unknown>([...STRINGS, ...NUMBERS, true, false, null, undefined]);
  }
  if (r < 0.55) {
    const items = Array.from({ length: Math.floor(next() * 4) }, () =>
      randomValue(next, depth + 1),
    );
    if (next() < 0.1) items.length += 1; // a hole
    return items;
  }
  const names = [...new Set(Array.from({ length: Math.floor(next() * 6) }, () => pick(NAMES)))];
  if (next() < 0.5) names.sort(byCodeUnit);
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = randomValue(next, depth + 1);
  return out;
}

test("canonical JSON equals the plain definition for generated values, ordered or not", (t) => {
  const next = seededRandom(13);
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(next, 0);
    t.is(canonicalJson(value), reference(value), JSON.stringify(value));
  }
});

test("values JSON.stringify writes differently keep their canonical form (members in order or not)", (t) => {
  const rawJson = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
  const withToJson = Object.assign([1, 2], { toJSON: () => "replaced" });
  const values: unknown[] = [
    { a: new Date(0), b: 1 },
    { a: { toJSON: () => "replaced" } },
    { a: withToJson },
    { a: Object.assign(Object.create(null) as object, { x: 1 }) },
    { a: new String("ab") },
    { a: () => 1, b: Symbol("s") },
    { a: [() => 1, undefined] },
    { a: new Uint8Array([1, 2]) },
    ...(rawJson ? [{ a: rawJson("1e999") }] : []),
    (() => {
      let deep: unknown = { z: 1 };
      for (let i = 0; i < 100; i++) deep = { a: deep };
      return deep;
    })(),
  ];
  for (const value of values) t.is(canonicalJson(value), reference(value));
});

test("a toJSON on Object.prototype is not called (as it never was)", (t) => {
  const proto = Object.prototype as { toJSON?: () => string };
  proto.toJSON = () => "polluted";
  try {
    t.is(canonicalJson({ a: { b: 1 } }), '{"a":{"b":1}}');
  } finally {
    delete proto.toJSON;
  }
});
