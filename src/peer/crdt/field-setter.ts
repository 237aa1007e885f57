/**
 * The same SETs of top-level fields, applied to many documents at one stamp (an UPDATE of many
 * documents). Setting a top-level field stamps that field and drops the stamps below it,
 * whatever the document holds, so the metadata after depends only on the metadata before:
 * documents that shared metadata before (those one statement wrote) share one result. It is
 * computed once by `DocumentEditor`, and reused as long as the metadata before is the same
 * object (the SQLite storage gives equal metadata of consecutive rows as one object).
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { DocumentEditor } from './document-editor.ts';
import type { DocumentMeta, Stamp } from './document-meta.ts';

export class FieldSetter {
  readonly #fields: readonly string[];
  readonly #stamp: Stamp;
  #before: DocumentMeta | undefined;
  #after: DocumentMeta | undefined;

  private constructor(fields: readonly string[], stamp: Stamp) {
    this.#fields = fields;
    this.#stamp = stamp;
  }

  /** A setter of these paths, or undefined unless each is one field name (no nesting, no array index). */
  static of(paths: readonly (readonly (string | number)[])[], stamp: Stamp): FieldSetter | undefined {
    const fields: string[] = [];
    for (const path of paths) {
      const field = path[0];
      if (path.length !== 1 || typeof field !== 'string') return undefined;
      fields.push(field);
    }
    return new FieldSetter(fields, stamp);
  }

  /**
   * Sets the fields of `value` (which it edits in place, as `DocumentEditor` does) to `values`,
   * in order, and returns the metadata after: what `DocumentEditor.set` of each field then
   * `meta()` give. Values are JSON values, never MISSING (a SET of MISSING is an UNSET).
   */
  apply(value: JsonObject, meta: DocumentMeta, values: readonly JsonValue[]): DocumentMeta {
    if (meta === this.#before && this.#after !== undefined) {
      this.#fields.forEach((field, i) => {
        const v = values[i] as JsonValue;
        value[field] = typeof v === 'object' && v !== null ? structuredClone(v) : v;
      });
      return this.#after;
    }
    const editor = new DocumentEditor(value, meta, this.#stamp);
    this.#fields.forEach((field, i) => editor.set([field], values[i] as JsonValue));
    this.#before = meta;
    this.#after = editor.meta();
    return this.#after;
  }
}
