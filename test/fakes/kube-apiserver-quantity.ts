/**
 * Test double support: the API server's canonical form of resource quantities, applied where it
 * stores them (container resources and emptyDir size limits of apps/v1 Deployments and pods), so
 * "0.5" comes back as "500m" and "1024Mi" as "1Gi", as on a real cluster.
 */
import { quantityValue } from "../../operator/kube/quantity.js";
import { isRecord } from "../../operator/kube/types.js";

const BINARY = ["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"] as const;
const DECIMAL: [string, number][] = [
  ["E", 18],
  ["P", 15],
  ["T", 12],
  ["G", 9],
  ["M", 6],
  ["k", 3],
  ["", 0],
  ["m", -3],
  ["u", -6],
  ["n", -9],
];

function isWhole(x: number): boolean {
  return Math.abs(x - Math.round(x)) < 1e-9;
}

export function canonicalQuantity(input: string | number): string {
  const value = quantityValue(input);
  if (value === undefined) return String(input);
  if (value === 0) return "0";
  if (typeof input === "string" && /[KMGTPE]i$/.test(input)) {
    for (const [i, suffix] of BINARY.entries()) {
      const scaled = value / 1024 ** (6 - i);
      if (Math.abs(scaled) >= 1 && isWhole(scaled)) return `${Math.round(scaled)}${suffix}`;
    }
    if (isWhole(value)) return String(Math.round(value));
  }
  for (const [suffix, exponent] of DECIMAL) {
    const scaled = value / 10 ** exponent;
    if (isWhole(scaled) && Math.abs(scaled) >= 1) return `${Math.round(scaled)}${suffix}`;
  }
  return String(value);
}

function canonicalMap(map: unknown): void {
  if (!isRecord(map)) return;
  for (const [key, value] of Object.entries(map))
    if (typeof value === "string" || typeof value === "number") map[key] = canonicalQuantity(value);
}

function canonicalPodSpec(spec: unknown): void {
  if (!isRecord(spec)) return;
  for (const list of [spec.containers, spec.initContainers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      if (!isRecord(container) || !isRecord(container.resources)) continue;
      canonicalMap(container.resources.requests);
      canonicalMap(container.resources.limits);
    }
  }
  if (Array.isArray(spec.volumes)) {
    for (const volume of spec.volumes) {
      const emptyDir = isRecord(volume) ? volume.emptyDir : undefined;
      if (
        isRecord(emptyDir) &&
        (typeof emptyDir.sizeLimit === "string" || typeof emptyDir.sizeLimit === "number")
      )
        emptyDir.sizeLimit = canonicalQuantity(emptyDir.sizeLimit);
    }
  }
}

/** Normalises the quantities of a Pod or of a workload's pod template, in place. */
export function canonicalizeQuantities(
  kind: string | undefined,
  object: Record<string, unknown>,
): void {
  const spec = isRecord(object.spec) ? object.spec : undefined;
  if (kind === "Pod") canonicalPodSpec(spec);
  else if (spec && isRecord(spec.template)) canonicalPodSpec(spec.template.spec);
}
