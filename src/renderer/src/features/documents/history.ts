/**
 * The console's history: statements run, newest last, browsed like a shell's (Mod-↑ older,
 * Mod-↓ newer, back to what was being typed). Kept in localStorage per origin. Pure.
 */

export interface ConsoleText {
  readonly statement: string;
  /** The arguments as typed (JSON text; empty for none). */
  readonly args: string;
}

export interface HistoryEntry extends ConsoleText {
  /** When it ran (ms since the epoch). */
  readonly at: number;
  /** Whether it ran without error. */
  readonly ok: boolean;
}

export interface HistoryState {
  readonly entries: readonly HistoryEntry[];
  /** The entry shown while browsing; undefined when not browsing. */
  readonly cursor: number | undefined;
  /** What was being typed when browsing began, given back past the newest entry. */
  readonly draft: ConsoleText | undefined;
}

/** Entries kept; older ones are dropped. */
export const HISTORY_LIMIT = 200;
/** Longer statements run, but are not kept (localStorage is small). */
export const HISTORY_MAX_CHARS = 20_000;

export const EMPTY_HISTORY: HistoryState = { entries: [], cursor: undefined, draft: undefined };

/** Adds a run statement as the newest entry (an identical older one moves up) and stops browsing. */
export function pushHistory(state: HistoryState, entry: HistoryEntry, limit = HISTORY_LIMIT): HistoryState {
  if (entry.statement.trim() === '' || entry.statement.length + entry.args.length > HISTORY_MAX_CHARS) {
    return { ...state, cursor: undefined, draft: undefined };
  }
  const entries = state.entries.filter((e) => e.statement !== entry.statement || e.args !== entry.args);
  entries.push(entry);
  return { entries: entries.slice(-limit), cursor: undefined, draft: undefined };
}

/**
 * One step through the history from what the console holds now: the text to show and the new
 * state, or undefined when there is nowhere to go.
 */
export function stepHistory(
  state: HistoryState,
  direction: -1 | 1,
  current: ConsoleText,
): { readonly state: HistoryState; readonly text: ConsoleText } | undefined {
  const { entries, cursor } = state;
  if (entries.length === 0) return undefined;
  if (cursor === undefined) {
    if (direction === 1) return undefined;
    const index = entries.length - 1;
    return { state: { ...state, cursor: index, draft: current }, text: textOf(entries[index] as HistoryEntry) };
  }
  const index = cursor + direction;
  if (index < 0) return undefined;
  if (index >= entries.length) {
    return { state: { ...state, cursor: undefined, draft: undefined }, text: state.draft ?? { statement: '', args: '' } };
  }
  return { state: { ...state, cursor: index }, text: textOf(entries[index] as HistoryEntry) };
}

/** Picks one entry (from the history list): shown in the console, browsing from there. */
export function pickHistory(
  state: HistoryState,
  index: number,
  current: ConsoleText,
): { readonly state: HistoryState; readonly text: ConsoleText } | undefined {
  const entry = state.entries[index];
  if (entry === undefined) return undefined;
  return { state: { ...state, cursor: index, draft: state.draft ?? current }, text: textOf(entry) };
}

function textOf(entry: HistoryEntry): ConsoleText {
  return { statement: entry.statement, args: entry.args };
}

/** Reads stored entries, keeping only well-formed ones. */
export function parseHistory(value: unknown): HistoryEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries: HistoryEntry[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) continue;
    const { statement, args, at, ok } = item as Record<string, unknown>;
    if (typeof statement !== 'string' || typeof args !== 'string' || typeof at !== 'number' || typeof ok !== 'boolean') continue;
    entries.push({ statement, args, at, ok });
  }
  return entries.slice(-HISTORY_LIMIT);
}
