/** One peer's read and write rules: everything, or per collection the conditions whose documents are allowed. */
import type { PeerPermissions } from '../../../../shared/inspector/permissions.ts';
import type { PermissionRules } from '../../../../shared/permissions.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { Section } from '../../ui/Section.tsx';
import { DqlText } from '../../ui/StatementView.tsx';

export const ROLE_LABELS = { local: 'This peer', 'big-peer': 'Big Peer', 'small-peer': 'Small peer' } as const;

export function RulesCard({ peer }: { readonly peer: PeerPermissions }) {
  return (
    <Section
      card
      headingLevel={3}
      className="rules-card"
      title={
        <span className="peer-title">
          <Badge tone={peer.role === 'local' ? 'accent' : peer.role === 'big-peer' ? 'info' : 'neutral'}>{ROLE_LABELS[peer.role]}</Badge>
          <PeerKey value={peer.peerKey} />
        </span>
      }
    >
      {peer.permissions === undefined ? (
        <p className="muted small">No certificate (an offline peer): no rules apply locally; it may read and write everything it holds.</p>
      ) : (
        <div className="rules-columns">
          <Rules title="Read" rules={peer.permissions.read} />
          <Rules title="Write" rules={peer.permissions.write} />
        </div>
      )}
    </Section>
  );
}

function Rules({ title, rules }: { readonly title: string; readonly rules: PermissionRules }) {
  const collections = Object.entries(rules.queries_by_collection);
  return (
    <div className="rules" role="group" aria-label={`${title} rules`}>
      <h4 className="rules-title">{title}</h4>
      {rules.everything ? (
        <p className="rule-everything">
          <Icon name="check" /> <strong>everything</strong> <span className="muted">— every document of every collection</span>
        </p>
      ) : collections.length === 0 ? (
        <p className="rule-nothing">
          <Icon name="x" /> nothing
        </p>
      ) : (
        <dl className="rule-list">
          {collections.map(([collection, queries]) => (
            <div key={collection} className="rule-row">
              <dt>
                <code>{collection}</code>
              </dt>
              <dd>
                {queries.map((query, i) => (
                  <span key={i} className="rule-query">
                    {i > 0 && <span className="faint"> or </span>}
                    <DqlText text={query} />
                  </span>
                ))}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {rules.everything && collections.length > 0 && (
        <p className="muted small">queries_by_collection also lists {collections.map(([c]) => c).join(', ')} (everything wins).</p>
      )}
    </div>
  );
}
