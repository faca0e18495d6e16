/** metav1.Condition handling: lastTransitionTime only moves when status flips. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

export function setConditions(
  existing: readonly Condition[] | undefined,
  updates: readonly ConditionInput[],
  generation: number | undefined,
  now: Date,
): Condition[] {
  const result = [...(existing ?? [])].map((c) => ({ ...c }));
  for (const update of updates) {
    const index = result.findIndex((c) => c.type === update.type);
    const previous = index >= 0 ? result[index] : undefined;
    const next: Condition = {
      ...update,
      lastTransitionTime:
        previous && previous.status === update.status
          ? previous.lastTransitionTime
          : now.toISOString(),
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
    if (index >= 0) result[index] = next;
    else result.push(next);
  }
  return result;
}

export function findCondition(conditions: unknown, type: string): Condition | undefined {
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find(
    (c): c is Condition => typeof c === "object" && c !== null && c.type === type,
  );
}
