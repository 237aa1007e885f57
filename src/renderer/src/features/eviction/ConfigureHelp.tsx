/**
 * What the panel shows while no strategy is configured: the two strategies of the spec (section
 * 1.6) and how to give the peer one, on the command line or in the desktop app's settings.json.
 */
import { Icon } from '../../ui/Icon.tsx';

const SETTINGS_EXAMPLE = `"eviction": {
  "strategies": [
    { "kind": "big-peer", "collection": "orders" },
    { "kind": "local", "collection": "carts", "ttlHours": 72, "field": "createdAt" }
  ],
  "window": "02:00-05:00"
}`;

export function ConfigureHelp() {
  return (
    <div className="eviction-help">
      <p className="eviction-help-lead">
        <Icon name="info" size={16} />
        No eviction strategy is configured on this peer: nothing is evicted on a schedule. EVICT statements still run, and the chart below still marks them and
        any documents that come back.
      </p>
      <div className="eviction-help-grid">
        <div className="eviction-help-strategy">
          <h3>Big Peer TTL (recommended)</h3>
          <p>
            The Big Peer’s daily TTL job flags old documents (<code>evictionFlag = true</code>) mesh-wide. This peer subscribes to{' '}
            <code>evictionFlag == false</code> and evicts the flagged ones, never one whose latest change the Big Peer has not acknowledged: nothing is lost,
            and no subscription needs updating.
          </p>
        </div>
        <div className="eviction-help-strategy">
          <h3>Local TTL</h3>
          <p>
            This peer evicts by its own TTL, in the three steps of spec 3.2: cancel the subscriptions that overlap,{' '}
            <code>EVICT … WHERE createdAt &lt;= :ttl</code>, and register the complement <code>createdAt &gt; :ttl</code>. For peers without a Big Peer, or
            never offline longer than the eviction cycle.
          </p>
        </div>
      </div>
      <div className="eviction-help-grid">
        <div>
          <h3>On the command line</h3>
          <pre className="eviction-code">{`syncmesh inspect … --evict big-peer:orders \\
  --evict local:carts:72 --evict-window 02:00-05:00`}</pre>
          <p className="muted">
            <code>--evict</code> is repeatable, one strategy per collection; <code>local:COLLECTION:TTL_HOURS[:FIELD]</code>. <code>syncmesh peer</code> takes
            the same options.
          </p>
        </div>
        <div>
          <h3>In the desktop app’s settings.json</h3>
          <pre className="eviction-code">{SETTINGS_EXAMPLE}</pre>
          <p className="muted">Beside bigPeerUrl, appId and playgroundToken; the window is in UTC and may wrap midnight. Restart the app to apply it.</p>
        </div>
      </div>
    </div>
  );
}
