import fc from "fast-check";

/** Strings an attacker sends: lone surrogates, NUL, bidi controls, huge, encodings, injections. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "\ud800",
    "\udfff",
    "a\ud800b",
    "\udc00\ud800",
    "x\u0000y",
    "\u0000",
    "\u202eevil",
    "\ufeff",
    "",
    " ",
    "%00",
    "%ED%A0%80",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "$(reboot)",
    "{{7*7}}",
    "__proto__",
    "constructor",
    "💥".repeat(50),
    "A".repeat(70_000),
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({
    unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    maxLength: 4,
  }),
);

/** A value nested `levels` deep (objects and arrays alternating), built without recursion. */
export function nested(levels: number, leaf: unknown = "x"): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

/** Any JSON-ish value of the wrong kind for wherever it is put. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1e308, "", [], {}, "not-a-number"),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: wrongType },
  { weight: 1, arbitrary: fc.constantFrom(10, 100, 3_500).map((n) => nested(n)) },
  { weight: 1, arbitrary: hostileString.map((s) => nested(5, s)) },
  { weight: 1, arbitrary: hostileString.map((s) => ({ [s]: s })) },
);

/** Puts a hostile value at one place in `value` (a leaf, a new key, or the whole thing). */
export function plantHostile(value: unknown, hostile: unknown, choice: number): unknown {
  const places = paths(value);
  if (places.length === 0) return hostile;
  const target = places[choice % places.length] as (string | number)[];
  if (target.length === 0) return hostile;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of target.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = target[target.length - 1] as string | number;
  if (choice % 5 === 0 && !Array.isArray(at)) {
    delete at[last]; // a missing field
    at[typeof hostile === "string" && hostile.length < 100 ? hostile : "extra"] = hostile;
  } else at[last] = hostile;
  return copy;
}

function paths(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [[]];
  const stack: { v: unknown; p: (string | number)[] }[] = [{ v: value, p: [] }];
  while (stack.length > 0 && out.length < 200) {
    const { v, p } = stack.pop() as { v: unknown; p: (string | number)[] };
    if (v === null || typeof v !== "object") continue;
    for (const [k, child] of Object.entries(v)) {
      const key = Array.isArray(v) ? Number(k) : k;
      out.push([...p, key]);
      stack.push({ v: child, p: [...p, key] });
    }
  }
  return out;
}

/** JSON text with the first key repeated, the second time holding a hostile value. */
export function withDuplicateKey(value: unknown, hostile: unknown): string {
  const text = JSON.stringify(value);
  if (!text.startsWith("{") || text === "{}") return text;
  const firstKey = Object.keys(value as object)[0] ?? "k";
  return `{${JSON.stringify(firstKey)}:${JSON.stringify(hostile) ?? "null"},${text.slice(1)}`;
}

/** Bytes for raw-body targets: random, truncated JSON, invalid UTF-8, huge. */
export const rawBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    Buffer.from('{"model":'),
    Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}'),
    Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), // {"m":"<CESU surrogate>"}
    Buffer.from([0xff, 0xfe, 0x00, 0x00]),
    Buffer.from("[".repeat(10_000)),
    Buffer.from('{"a":'.repeat(5_000)),
    Buffer.from("null"),
    Buffer.from('"just a string"'),
    Buffer.from("1e999999"),
  ),
);
