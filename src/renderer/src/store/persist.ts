/**
 * The inspector's own state kept in localStorage (per origin): console history, theme, layout.
 * Every read is checked by the caller's parser; a missing, unreadable or full storage never throws.
 */

const PREFIX = 'syncmesh.inspector.';

export function readStored<T>(key: string, parse: (value: unknown) => T | undefined): T | undefined {
  try {
    const text = globalThis.localStorage?.getItem(PREFIX + key);
    if (text === null || text === undefined) return undefined;
    return parse(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function writeStored(key: string, value: unknown): void {
  try {
    globalThis.localStorage?.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Storage full or refused: the state still lives for this session.
  }
}
