/** The Documents panel's slice: `documents` (peer data) and `documentsView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface DocumentsSlice {
  readonly documentsView: Record<string, never>;
}

export const createDocumentsSlice: SliceCreator<DocumentsSlice> = () => ({
  documentsView: {},
});

export const wireDocumentsEvents: EventWiring = () => () => {};
