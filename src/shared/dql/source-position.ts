/** Where in a statement something was found: 1-based line and column, 0-based offset. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}
