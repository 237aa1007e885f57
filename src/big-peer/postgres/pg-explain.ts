/**
 * The plan of a query on PostgreSQL, in the stable shape of DQL's EXPLAIN (StoragePlan, docs/dql.md),
 * read from PostgreSQL's own `EXPLAIN (FORMAT JSON)`: which secondary index it uses (by its DQL
 * name), or the `_id` key, or a scan; whether it sorts; and one line per plan node as details.
 */
import type { StoragePlan } from '../../peer/host.ts';

interface PlanNode {
  readonly 'Node Type'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly 'Relation Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

function nodes(node: PlanNode, depth: number, out: { node: PlanNode; depth: number }[]): void {
  out.push({ node, depth });
  for (const child of node.Plans ?? []) nodes(child, depth + 1, out);
}

/** `json`: EXPLAIN's result (an array of one `{ Plan }`); `names`: PostgreSQL index names to DQL index names. */
export function planOf(sql: string, json: unknown, names: ReadonlyMap<string, string>): StoragePlan {
  const root = (json as readonly { Plan: PlanNode }[] | undefined)?.[0]?.Plan;
  const all: { node: PlanNode; depth: number }[] = [];
  if (root !== undefined) nodes(root, 0, all);
  let index: string | null = null;
  let byId = false;
  for (const { node } of all) {
    const name = node['Index Name'];
    if (name === undefined) continue;
    const dql = names.get(name);
    if (dql !== undefined) index = dql;
    else if (name === 'documents_pkey' && /\bid\b/.test(node['Index Cond'] ?? '')) byId = true;
  }
  const details = all.map(({ node, depth }) => {
    const on =
      node['Index Name'] !== undefined
        ? ` using ${names.get(node['Index Name']) ?? node['Index Name']}`
        : node['Relation Name'] !== undefined
          ? ` on ${node['Relation Name']}`
          : '';
    const cond = node['Index Cond'] !== undefined ? ` (${node['Index Cond']})` : '';
    return `${'  '.repeat(depth)}${node['Node Type'] ?? '?'}${on}${cond}`;
  });
  return {
    access: index !== null ? 'index' : byId ? 'id' : 'scan',
    index,
    sorted: all.some(({ node }) => node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort'),
    sql,
    details,
  };
}
