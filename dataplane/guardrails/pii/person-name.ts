import type { PiiDetector, PiiMatch } from "./entities.js";

export function findPersonNames(_text: string): PiiMatch[] {
  return [];
}

export const personNameDetector: PiiDetector = { entities: ["PERSON"], find: findPersonNames };
