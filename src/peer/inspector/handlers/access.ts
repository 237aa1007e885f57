/**
 * Read and write verdicts for one document under one peer's rules, with the reason in words.
 * Conditions are checked by replication's own matching code (compileRules, allowsDocument), one
 * rule at a time so that the reason can name the rule that decided.
 */
import type { Verdict } from '../../../shared/inspector/permissions.ts';
import type { JsonObject } from '../../../shared/json.ts';
import type { PermissionRules } from '../../../shared/permissions.ts';
import { allowsDocument, compileRules } from '../../replication/matching.ts';

/** What this peer holds of the document: nothing, a tombstone (null) or a value. */
export type Held = { readonly found: false } | { readonly found: true; readonly value: JsonObject | null };

/** A rule's text, shortened for a reason line. */
function shown(rule: string): string {
  const flat = rule.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/**
 * May a peer with these rules read (or write) the document? `rules` undefined: the local peer
 * holds no certificate, so no rules apply to it (an offline peer reads and writes its own store).
 */
export function verdict(kind: 'read' | 'write', rules: PermissionRules | undefined, collection: string, held: Held): Verdict {
  if (rules === undefined) return { allowed: true, reason: 'no certificate: no rules apply to this peer locally (offline)' };
  if (rules.everything) return { allowed: true, reason: `${kind}.everything is true` };
  const list = Object.hasOwn(rules.queries_by_collection, collection) ? (rules.queries_by_collection[collection] ?? []) : [];
  if (list.length === 0) return { allowed: false, reason: `no ${kind} rule for collection ${collection}` };
  const prefix = `${kind}.queries_by_collection.${collection}`;
  const broken: string[] = [];
  const compiled = list.map((rule) => {
    let bad = false;
    const one = compileRules({ everything: false, queries_by_collection: { [collection]: [rule] } }, () => (bad = true));
    if (bad) broken.push(rule);
    return { rule, one, bad, wholeCollection: !bad && one.byCollection.get(collection)?.[0] === undefined };
  });
  const whole = compiled.find((c) => c.wholeCollection);
  if (whole !== undefined) return { allowed: true, reason: `${prefix}: ${shown(whole.rule)} matches every document` };
  const brokenNote = broken.length === 0 ? '' : `; ${broken.map((r) => `${shown(r)} does not parse and allows nothing`).join('; ')}`;
  if (!held.found) return { allowed: false, reason: `document not held here: rules with conditions cannot be decided${brokenNote}` };
  if (held.value === null) {
    const any = compiled.some((c) => !c.bad);
    return any
      ? { allowed: true, reason: `${prefix}: a tombstone has no fields to test; it is allowed where the collection has a rule` }
      : { allowed: false, reason: `${prefix}: no rule parses${brokenNote}` };
  }
  const value = held.value;
  const match = compiled.find((c) => !c.bad && allowsDocument(c.one, collection, value));
  if (match !== undefined) return { allowed: true, reason: `${prefix}: ${shown(match.rule)} matches` };
  return { allowed: false, reason: `${prefix}: no rule matches (${list.map(shown).join('; ')})${brokenNote}` };
}
