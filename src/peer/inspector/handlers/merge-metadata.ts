/**
 * A stored document's merge metadata (crdt/document-meta.ts) as the inspector shows it: for
 * every leaf field, who wrote the winning value and when. A leaf without a stamp of its own
 * takes its closest ancestor's, and the creation stamp at the top, exactly as the merge reads
 * it; counters show each writer's net tally; removed (UNSET) paths are listed as `removed`.
 */
import type { DocumentMetadata, FieldMerge, WriteStamp } from '../../../shared/inspector/documents.ts';
import type { JsonObject, JsonValue } from '../../../shared/json.ts';
import { counterValue, pathKey, type DocumentMeta, type Stamp } from '../../crdt/document-meta.ts';
import { parseHlc } from '../../crdt/hlc.ts';
import { printPath } from '../../dql/print.ts';
import type { SessionInfo } from '../../replication/replicator.ts';
import type { StoredDocument } from '../../storage/types.ts';

/** Who is who now: the local peer and the remote peers with a live session. */
export interface Writers {
  readonly local: string;
  readonly sessions: readonly SessionInfo[];
}

type Path = readonly string[];

/** The wall-clock part of a hybrid-clock stamp (12 hex of ms, then 4 of a counter), ISO 8601. */
export function hlcTime(hlc: string): string {
  try {
    const { ms } = parseHlc(hlc);
    return new Date(ms).toISOString();
  } catch {
    return 'invalid';
  }
}

export function writeStamp(stamp: Stamp, writers: Writers): WriteStamp {
  const [hlc, writer] = stamp;
  let writerRole: WriteStamp['writerRole'] = 'unknown';
  if (writer === writers.local) writerRole = 'local';
  else {
    const session = writers.sessions.find((s) => s.remote.peerKey === writer);
    if (session !== undefined) writerRole = session.remote.role === 'big-peer' ? 'big-peer' : 'remote';
  }
  return { writer, writerRole, hlc, time: hlcTime(hlc) };
}

function isMap(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** The stamp a leaf reads with: its own, else its closest ancestor's, else the creation stamp. */
function stampOf(meta: DocumentMeta, path: Path): Stamp {
  for (let i = path.length; i > 0; i--) {
    const stamp = meta.f?.[pathKey(path.slice(0, i))];
    if (stamp !== undefined) return stamp;
  }
  return meta.c;
}

function parsePath(key: string): Path | undefined {
  try {
    const parsed = JSON.parse(key) as unknown;
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? (parsed as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every leaf field of the value, removed paths and counters included, in path order. */
export function fieldMerges(value: JsonObject | null, meta: DocumentMeta, writers: Writers): FieldMerge[] {
  const found: { path: Path; field: FieldMerge }[] = [];
  const present = new Set<string>();
  const walk = (object: JsonObject, prefix: Path): void => {
    for (const [name, child] of Object.entries(object)) {
      const path = [...prefix, name];
      const key = pathKey(path);
      present.add(key);
      const counter = meta.n?.[key];
      if (counter !== undefined) {
        const tallies: Record<string, number> = {};
        for (const [writer, [inc, dec]] of Object.entries(counter.t)) tallies[writer] = inc - dec;
        found.push({ path, field: { path: printPath(path), value: counterValue(counter), kind: 'counter', stamp: writeStamp(counter.s, writers), tallies } });
      } else if (isMap(child) && Object.keys(child).length > 0) {
        walk(child, path);
      } else {
        found.push({ path, field: { path: printPath(path), value: child, kind: 'register', stamp: writeStamp(stampOf(meta, path), writers) } });
      }
    }
  };
  if (value !== null) walk(value, []);
  for (const [key, stamp] of Object.entries(meta.r ?? {})) {
    const path = parsePath(key);
    if (path === undefined || present.has(key)) continue;
    found.push({ path, field: { path: printPath(path), value: null, kind: 'removed', stamp: writeStamp(stamp, writers) } });
  }
  return found.sort((a, b) => comparePaths(a.path, b.path)).map((f) => f.field);
}

export function documentMetadata(collection: string, stored: StoredDocument, writers: Writers): DocumentMetadata {
  const meta = stored.meta;
  return {
    collection,
    id: stored.id,
    value: stored.value,
    txnId: stored.txnId,
    created: writeStamp(meta.c, writers),
    deleted: stored.value === null && meta.d !== undefined ? writeStamp(meta.d, writers) : undefined,
    fields: fieldMerges(stored.value, meta, writers),
  };
}
