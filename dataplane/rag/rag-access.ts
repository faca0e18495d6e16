import { GatewayError } from "../core/errors.js";
import {
  CLASSIFICATION_LEVELS,
  classificationRank,
  type ClassificationLevel,
} from "../core/identity.js";
import type { RagCollection } from "./rag-types.js";

/**
 * Who may read a collection. A key's classification floor is also its clearance: a key at
 * `confidential` handles confidential data, so it reads public, internal and confidential
 * collections, and a key at `internal` cannot read (list, get, upload to, search or query) a
 * `confidential` collection. Every customer-scoped read also filters by customer.
 */
export function readableClassifications(keyLevel: ClassificationLevel): ClassificationLevel[] {
  return CLASSIFICATION_LEVELS.filter((l) => classificationRank(l) <= classificationRank(keyLevel));
}

export function canReadCollection(
  keyLevel: ClassificationLevel,
  collection: Pick<RagCollection, "classification">,
): boolean {
  return classificationRank(collection.classification) <= classificationRank(keyLevel);
}

/** Throws 403 classification_restricted when the key is below the collection's classification. */
export function assertCanReadCollection(
  keyLevel: ClassificationLevel,
  collection: Pick<RagCollection, "id" | "classification">,
): void {
  if (!canReadCollection(keyLevel, collection)) {
    throw new GatewayError(
      "classification_restricted",
      `collection ${collection.id} is classified ${collection.classification}, above this key's ${keyLevel}`,
    );
  }
}
