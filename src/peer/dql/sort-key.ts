/**
 * An order-preserving binary encoding of values: `Buffer.compare` on two keys gives the same
 * answer as `compareTotal` on the values. SQLite compares BLOBs with memcmp, so the key serves
 * as the documents' primary key (default `_id` order for free) and as the ORDER BY term for
 * arrays and objects. Objects are encoded in sorted-key order, so equal objects have equal keys.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { MISSING, sortedKeys, type Value } from './values.ts';

const TAG = { false: 0x01, true: 0x02, number: 0x03, string: 0x04, array: 0x05, object: 0x06, null: 0x07, missing: 0x08 } as const;

class KeyWriter {
  #buf = Buffer.allocUnsafe(64);
  #len = 0;

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#len + n));
    this.#buf.copy(next, 0, 0, this.#len);
    this.#buf = next;
  }

  byte(b: number): void {
    this.#reserve(1);
    this.#buf[this.#len++] = b;
  }

  number(n: number): void {
    this.#reserve(8);
    const x = n === 0 ? 0 : n; // -0 sorts as 0
    this.#buf.writeDoubleBE(x, this.#len);
    if (x < 0) {
      for (let i = 0; i < 8; i++) this.#buf[this.#len + i] = ~(this.#buf[this.#len + i] as number) & 0xff;
    } else {
      this.#buf[this.#len] = (this.#buf[this.#len] as number) ^ 0x80;
    }
    this.#len += 8;
  }

  // UTF-8 bytes with 0x00 escaped as 0x00 0x01, terminated by 0x00 0x00.
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.#reserve(bytes.length * 2 + 2);
    for (const b of bytes) {
      this.#buf[this.#len++] = b;
      if (b === 0) this.#buf[this.#len++] = 0x01;
    }
    this.#buf[this.#len++] = 0;
    this.#buf[this.#len++] = 0;
  }

  value(v: Value): void {
    if (v === MISSING) return this.byte(TAG.missing);
    if (v === null) return this.byte(TAG.null);
    switch (typeof v) {
      case 'boolean':
        return this.byte(v ? TAG.true : TAG.false);
      case 'number':
        this.byte(TAG.number);
        return this.number(v);
      case 'string':
        this.byte(TAG.string);
        return this.string(v);
    }
    if (Array.isArray(v)) {
      this.byte(TAG.array);
      for (const item of v) this.value(item);
      return this.byte(0);
    }
    this.byte(TAG.object);
    const object = v as JsonObject;
    for (const key of sortedKeys(object)) {
      this.byte(0x01);
      this.string(key);
      this.value(object[key] as JsonValue);
    }
    this.byte(0);
  }

  result(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#len));
  }
}

/** The order-preserving key of a value. */
export function sortKey(value: Value): Buffer {
  // Fast path for the common string `_id`.
  if (typeof value === 'string') {
    let ascii = true;
    for (let i = 0; i < value.length; i++) {
      if (value.charCodeAt(i) === 0 || value.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      const out = Buffer.allocUnsafe(value.length + 3);
      out[0] = TAG.string;
      out.write(value, 1, 'latin1');
      out[value.length + 1] = 0;
      out[value.length + 2] = 0;
      return out;
    }
  }
  const w = new KeyWriter();
  w.value(value);
  return w.result();
}
