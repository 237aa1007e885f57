/** The Big Peer's metrics: bounded labels, totals followed from their source, one registry each. */
import { describe, expect, it } from 'vitest';
import { BigPeerMetrics, statusClass, type MetricsSources, type TrafficTotals } from './metrics.ts';
import { parsePrometheusText, sampleValue } from '../testing/big-peer/prometheus-text.ts';

function sources(traffic: TrafficTotals = { bytesSent: 0, bytesReceived: 0, docsSent: 0, docsReceived: 0 }): MetricsSources & { totals: TrafficTotals } {
  const state = { totals: traffic };
  return {
    get totals() {
      return state.totals;
    },
    set totals(value: TrafficTotals) {
      state.totals = value;
    },
    store: { lastTxnId: 7, writeSlot: { waiting: 0 }, onBlockedWait: () => () => {} },
    traffic: () => state.totals,
    sessions: () => 0,
    peers: () => 0,
    draining: () => false,
  };
}

const read = async (metrics: BigPeerMetrics) => parsePrometheusText(await metrics.text());

describe('the Big Peer metrics', () => {
  it('keep labels to small fixed sets: unknown methods and close codes are "other", an unanswered request "none"', async () => {
    const metrics = new BigPeerMetrics(sources());
    metrics.request('BREW', '/_health')(200);
    metrics.request('GET', '/_ready')(undefined);
    metrics.sessionEnded(4999);
    metrics.sessionEnded(1001);
    const m = await read(metrics);
    expect(sampleValue(m, 'syncmesh_http_request_duration_seconds_count', { method: 'other', route: '/_health', status_class: '2xx' })).toBe(1);
    expect(sampleValue(m, 'syncmesh_http_request_duration_seconds_count', { method: 'GET', route: '/_ready', status_class: 'none' })).toBe(1);
    expect(sampleValue(m, 'syncmesh_websocket_sessions_closed_total', { code: 'other' })).toBe(1);
    expect(sampleValue(m, 'syncmesh_websocket_sessions_closed_total', { code: '1001' })).toBe(1);
    expect(sampleValue(m, 'syncmesh_http_requests_in_flight')).toBe(0);
    expect(statusClass(503)).toBe('5xx');
  });

  it('follow replication totals kept by the Sync', async () => {
    const src = sources({ bytesSent: 10, bytesReceived: 20, docsSent: 0, docsReceived: 0 });
    const metrics = new BigPeerMetrics(src);
    let m = await read(metrics);
    expect([sampleValue(m, 'syncmesh_replication_sent_bytes_total'), sampleValue(m, 'syncmesh_replication_sent_documents_total')]).toEqual([10, 0]);
    src.totals = { bytesSent: 25, bytesReceived: 20, docsSent: 3, docsReceived: 1 };
    m = await read(metrics);
    expect(sampleValue(m, 'syncmesh_replication_sent_bytes_total')).toBe(25);
    expect(sampleValue(m, 'syncmesh_replication_sent_documents_total')).toBe(3);
    expect(sampleValue(m, 'syncmesh_replication_received_documents_total')).toBe(1);
    expect(sampleValue(m, 'syncmesh_store_last_txn_id')).toBe(7);
  });

  it('keeps each Big Peer in its own registry, so two in one process do not collide', async () => {
    const a = new BigPeerMetrics(sources());
    const b = new BigPeerMetrics(sources());
    a.sessionOpened();
    expect(sampleValue(await read(a), 'syncmesh_websocket_sessions_opened_total')).toBe(1);
    expect(sampleValue(await read(b), 'syncmesh_websocket_sessions_opened_total')).toBe(0);
  });
});

describe('the Prometheus text reader of the tests', () => {
  it('reads values as Prometheus does, NaN and Inf in any case, and refuses a malformed line', () => {
    const text = '# TYPE x gauge\nx{a="1"} Nan\nx{a="2"} +Inf\nx{a="3"} -inf\nx{a="4"} 1.5e3\n';
    const parsed = parsePrometheusText(text);
    expect(parsed.samples.map((s) => s.value)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1500]);
    expect(() => parsePrometheusText('# TYPE x gauge\nx{a=1} 2\n')).toThrow(/malformed/);
    expect(() => parsePrometheusText('y 2\n')).toThrow(/no TYPE/);
  });
});
