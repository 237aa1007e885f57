/**
 * "Go to document": the statement that finds one document by what the user typed as its `_id`.
 * Ids are JSON values; what is typed is text. Text that reads as JSON other than a string (`42`,
 * `{"store": 1}`) may mean that value or the string itself (an order number `1001` is often a
 * string id), so the statement asks for both; a quoted string (`"42"`) means the string. Pure.
 */
import type { JsonObject, JsonValue } from '../../../../shared/json.ts';
import { quoteName, type Statement } from '../../../../shared/inspector/statements.ts';

export function goToStatement(collection: string, idText: string): Statement {
  const text = idText.trim();
  const from = `SELECT * FROM ${quoteName(collection)} WHERE _id = :id`;
  let parsed: JsonValue | undefined;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || typeof parsed === 'string') return { statement: from, args: { id: parsed ?? text } };
  const args: JsonObject = { id: parsed, text };
  return { statement: `${from} OR _id = :text`, args };
}
