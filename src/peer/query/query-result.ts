import type { JsonObject, JsonValue } from '../../shared/json.ts';

/** What running a statement answers: the items a SELECT found, and what a mutation changed and committed. */
export interface QueryResult {
  readonly items: JsonObject[];
  readonly mutatedDocumentIds: JsonValue[];
  /** The `txn_id` a mutation committed (or, inside a transaction, will commit); null for a SELECT. */
  readonly commitId: number | null;
}
