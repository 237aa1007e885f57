/** The errors of serving the inspector (docs/inspector-api.md, "Serving the inspector"). */
import { SyncError } from '../errors.ts';

/** serveInspector was given an option it cannot take (`inspector/bad-option`). */
export class InspectorServerOptionError extends SyncError {
  constructor(message: string) {
    super('inspector/bad-option', message);
  }
}
