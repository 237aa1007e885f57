/** The access check's `_id` field: what the user types, read as the `_id` it means. Pure. */
import type { JsonValue } from '../../../../shared/json.ts';

/**
 * `o1` is the string `o1`; JSON text is read as JSON (`42`, `"42"`, `{"shop": 1}`), so that a
 * number or an object `_id` can be written. Only strings, numbers and objects are `_id`s.
 */
export function parseIdInput(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    const value = JSON.parse(trimmed) as JsonValue;
    if (typeof value === 'string' || typeof value === 'number' || (typeof value === 'object' && value !== null && !Array.isArray(value))) return value;
  } catch {
    // Not JSON: a plain string id.
  }
  return trimmed;
}

/** The text that `parseIdInput` reads back as `id`. */
export function idToText(id: JsonValue): string {
  if (typeof id === 'string' && parseIdInput(id) === id && id.trim() === id) return id;
  return JSON.stringify(id);
}
