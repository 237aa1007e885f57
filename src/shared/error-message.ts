/** The message of anything thrown: an `Error`'s message, anything else as a string. Pure. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
