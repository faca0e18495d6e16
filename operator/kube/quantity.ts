/**
 * Kubernetes resource quantities ("500m", "0.5", "1Gi", "1024Mi", 2): the API server stores them in
 * canonical form, so the operator compares what it wants with what is stored by value, never by
 * text (or every reconcile would PATCH "0.5" over "500m").
 */
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([KMGTPE]i)|([numkMGTPE])|[eE]([+-]?\d+))?$/;

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** The value of a quantity, or undefined when it is not one. */
export function quantityValue(quantity: unknown): number | undefined {
  if (typeof quantity === "number") return Number.isFinite(quantity) ? quantity : undefined;
  if (typeof quantity !== "string") return undefined;
  const m = QUANTITY.exec(quantity.trim());
  if (!m) return undefined;
  const [, number = "", binary, decimal, exponent] = m;
  const base = Number(number);
  if (binary !== undefined) return base * 1024 ** (BINARY[binary] ?? 0);
  if (decimal !== undefined) return base * 10 ** (DECIMAL[decimal] ?? 0);
  if (exponent !== undefined) return base * 10 ** Number(exponent);
  return base;
}

/** Same quantity, within floating-point rounding ("0.5" and "500m", "1Gi" and "1024Mi"). */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return false;
  return x === y || Math.abs(x - y) <= Math.max(Math.abs(x), Math.abs(y)) * 1e-12;
}
