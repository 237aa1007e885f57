/**
 * Merging a chunk of documents from a remote peer into the store: field by field (crdt/merge.ts),
 * in one `Replication` transaction, and only where something changes. A chunk that changes
 * nothing starts no transaction, so a state that comes back to the peer it came from stops
 * there; a change the remote was not allowed to write is refused, logged by the caller, and
 * not merged. Each document is checked against its stored state at the moment it is written.
 */
import { jsonEqual, type JsonValue } from '../../shared/json.ts';
import type { WireDocument, WireMeta } from '../../shared/protocol/messages.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import { mergeDocumentStates, type DocumentState } from '../crdt/merge.ts';
import type { StorageReader, StoredDocument } from '../storage/types.ts';
import type { OpenWrite } from '../store/store.ts';
import { allowsDocument, type CompiledRules } from './matching.ts';
import { docKey } from './update-builder.ts';

export interface Refusal {
  readonly collection: string;
  readonly id: JsonValue;
}

export interface MergeOutcome {
  /** Documents whose stored state changed. */
  readonly merged: number;
  readonly refused: readonly Refusal[];
  /** The transaction that wrote them; undefined when nothing changed. */
  readonly txnId: number | undefined;
  /** Documents this peer did not hold (absent, or deleted) and holds now. */
  readonly arrived: readonly (readonly [string, JsonValue])[];
}

export interface MergeTarget {
  read<T>(fn: (reader: StorageReader) => T): T;
  /** Runs `fn` in one Replication write transaction, named `hint` in the log and the timeline. */
  write<T>(fn: (write: OpenWrite) => T, hint?: string): Promise<{ result: T; txnId: number }>;
  /** Moves the local clock past a remote stamp. */
  observeClock(hlc: string): void;
}

function sameState(a: DocumentState, b: DocumentState): boolean {
  return jsonEqual(a.value, b.value) && jsonEqual(a.meta, b.meta);
}

/** The latest stamp of a document's metadata: when it last changed. */
export function latestStamp(meta: WireMeta): string {
  let max = meta.c[0];
  const see = (hlc: string): void => {
    if (hlc > max) max = hlc;
  };
  if (meta.d !== undefined) see(meta.d[0]);
  for (const s of Object.values(meta.f ?? {})) see(s[0]);
  for (const s of Object.values(meta.r ?? {})) see(s[0]);
  for (const n of Object.values(meta.n ?? {})) see(n.s[0]);
  return max;
}

/**
 * Which documents of a chunk this peer still wants (it holds them, or its subscriptions match
 * them). Every document is checked inside the write; `always`: on the snapshot too (the update
 * was made for subscriptions this peer has since changed).
 */
export interface WantedFilter {
  readonly test: (reader: StorageReader, doc: WireDocument) => boolean;
  readonly always: boolean;
}

type Plan = { kind: 'same' } | { kind: 'refused' } | { kind: 'write'; state: DocumentState; echo: boolean; arrived: boolean };

/** What merging `doc` into what the store holds now would do. */
function plan(reader: StorageReader, doc: WireDocument, writeRules: CompiledRules): Plan {
  const incoming: DocumentState = { value: doc.value, meta: doc.meta as DocumentMeta };
  const local: StoredDocument | undefined = reader.get(doc.collection, doc.id);
  const merged = local === undefined ? incoming : mergeDocumentStates(local, incoming);
  // Stored states need not be in the merge's normal form (a fresh INSERT keeps one stamp):
  // a merge that only normalizes changes nothing.
  if (local !== undefined && (sameState(merged, local) || sameState(merged, mergeDocumentStates(local, local)))) return { kind: 'same' };
  // A change: the remote must be allowed to write the document as it is here and as it sends it.
  const allowed =
    allowsDocument(writeRules, doc.collection, doc.value) &&
    (local === undefined || local.value === null || allowsDocument(writeRules, doc.collection, local.value));
  if (!allowed) return { kind: 'refused' };
  const arrived = (local === undefined || local.value === null) && merged.value !== null;
  return { kind: 'write', state: merged, echo: sameState(merged, incoming), arrived };
}

/**
 * Merges the chunk. `onEcho` hears, inside the transaction and so before its commit wakes
 * anything, of each document stored exactly as the remote sent it (undone if it rolls back).
 */
export async function mergeChunk(
  target: MergeTarget,
  docs: readonly WireDocument[],
  writeRules: CompiledRules,
  onEcho: (key: string, txnId: number | undefined) => void = () => {},
  wanted?: WantedFilter,
): Promise<MergeOutcome> {
  for (const doc of docs) target.observeClock(latestStamp(doc.meta));
  // First on a snapshot: a chunk that changes nothing opens no transaction.
  const refusedFirst: Refusal[] = [];
  let changes = false;
  target.read((reader) => {
    for (const doc of docs) {
      if (wanted?.always === true && !wanted.test(reader, doc)) continue;
      const p = plan(reader, doc, writeRules);
      if (p.kind === 'refused') refusedFirst.push({ collection: doc.collection, id: doc.id });
      else if (p.kind === 'write') changes = true;
    }
  });
  if (!changes) return { merged: 0, refused: refusedFirst, txnId: undefined, arrived: [] };
  const recorded: string[] = [];
  let written: { result: { refused: Refusal[]; merged: number; arrived: (readonly [string, JsonValue])[] }; txnId: number };
  try {
    written = await target.write((w) => {
      const refused: Refusal[] = [];
      const arrived: (readonly [string, JsonValue])[] = [];
      let merged = 0;
      // Checked again here, inside the write, whatever the subscription version the update was
      // made for: an EVICT may have committed since the snapshot, or just before it (the peer
      // asked for a document by name while it held it, and the answer came after the EVICT).
      const check = wanted !== undefined;
      for (const doc of docs) {
        if (check && !wanted.test(w.writer, doc)) continue;
        const p = plan(w.writer, doc, writeRules);
        if (p.kind === 'refused') refused.push({ collection: doc.collection, id: doc.id });
        if (p.kind !== 'write') continue;
        w.writer.put(doc.collection, { id: doc.id, value: p.state.value, meta: p.state.meta, txnId: w.txnId });
        merged++;
        if (p.arrived) arrived.push([doc.collection, doc.id]);
        if (p.echo) {
          const key = docKey(doc.collection, doc.id);
          recorded.push(key);
          onEcho(key, w.txnId);
        }
      }
      return { refused, merged, arrived };
    });
  } catch (error) {
    for (const key of recorded) onEcho(key, undefined);
    throw error;
  }
  const { result, txnId } = written;
  return { merged: result.merged, refused: result.refused, txnId, arrived: result.arrived };
}
