import { describe, expect, it } from 'vitest';
import {
  authSentence,
  authWords,
  edgeCaption,
  edgeCaptionLines,
  electedConnection,
  peerNow,
  refusalTitle,
  retryText,
  shortAddress,
  sortConnections,
  stateAge,
} from './mesh-model.ts';
import { BIG, NOW, connection, refused, snapshot, verified } from '../../../../testing/renderer/mesh-snapshots.ts';

describe('the Mesh panel’s words', () => {
  it('counts down to the next dial from when the snapshot arrived, on the viewer’s clock only', () => {
    const closed = connection('WsClient#3', { state: 'closed', reason: 'socket closed (1006)', retryInMs: 4_000 });
    expect(retryText(closed, 50_000, 50_000)).toBe('retry in 4 s');
    expect(retryText(closed, 50_000, 51_200)).toBe('retry in 3 s');
    expect(retryText(closed, 50_000, 53_600)).toBe('retry in 1 s');
    expect(retryText(closed, 50_000, 60_000)).toBe('retrying…');
    expect(retryText(connection('WsClient#1'), 50_000, 50_000)).toBeUndefined();
  });

  it('captions a closed edge with its reason and its retry', () => {
    const closed = connection('WsClient#3', { state: 'closed', reason: 'socket closed (1006)', retryInMs: 65_000 });
    expect(edgeCaption(closed, 0, 0)).toBe('closed · retry in 1 min 05 s · socket closed (1006)');
    expect(edgeCaption(connection('WsServer#2', { state: 'closed' }), 0, 0)).toBe('closed');
    expect(edgeCaption(connection('WsClient#1', { state: 'standby' }), 0, 0)).toBe('standby');
  });

  it('says what a connection not dialed yet waits for', () => {
    expect(edgeCaption(connection('WsClient ws://x', { state: 'connecting', reason: 'a certificate' }), 0, 0)).toBe('connecting · waiting: a certificate');
  });

  it('measures how long a connection has been in its state on the peer’s clock', () => {
    const snap = snapshot({ now: 100_000 });
    expect(peerNow(snap, 5_000, 7_000)).toBe(102_000);
    expect(stateAge(connection('WsClient#1', { since: 40_000 }), snap, 5_000, 7_000)).toBe('1 min 02 s');
  });

  it('finds the elected connection of a peer', () => {
    const connections = [connection('WsClient#1', { state: 'standby' }), connection('WsServer#2', { state: 'elected', direction: 'accepted' })];
    expect(electedConnection(connections, BIG)?.id).toBe('WsServer#2');
    expect(electedConnection(connections, 'nobody')).toBeUndefined();
  });

  it('lists open connections before closed ones, newest first', () => {
    const sorted = sortConnections([
      connection('a', { state: 'closed', since: 9 }),
      connection('b', { state: 'elected', since: 1 }),
      connection('c', { state: 'closed', since: 20 }),
      connection('d', { state: 'connecting', since: 5 }),
    ]);
    expect(sorted.map((c) => c.id)).toEqual(['b', 'd', 'c', 'a']);
  });

  it('shortens an address to its host and port', () => {
    expect(shortAddress('ws://127.0.0.1:34933/_sync/ws')).toBe('127.0.0.1:34933');
    expect(shortAddress('127.0.0.1:51000')).toBe('127.0.0.1:51000');
  });
});

describe('the Mesh panel’s words for authentication and refusals', () => {
  const HOUR = 3_600_000;

  it('says a verified peer’s user and when its certificate expires, on the peer’s clock', () => {
    const words = authWords(verified('alice', NOW + 8 * HOUR), NOW);
    expect(words).toEqual({
      tone: 'ok',
      label: 'verified',
      by: undefined,
      lines: ['user alice'],
      expiry: { expired: false, text: 'certificate expires in 8 h 00 min', exact: '1970-01-01 08:00:10.000 UTC' },
    });
    expect(authSentence(verified('alice', NOW + 8 * HOUR), NOW)).toBe(
      'certificate verified, user alice, certificate expires in 8 h 00 min (1970-01-01 08:00:10.000 UTC)',
    );
  });

  it('says when a verified certificate has expired since', () => {
    expect(authWords(verified('alice', NOW - 90_000), NOW).expiry).toMatchObject({ expired: true, text: 'certificate expired 1 min 30 s ago' });
  });

  it('says who refused a handshake, with its code, and why in full', () => {
    const reason = 'bad certificate (UnknownIssuer): not issued by the Big Peer this peer trusts';
    expect(authWords(refused('remote', reason), NOW)).toEqual({
      tone: 'danger',
      label: 'refused',
      by: 'by the remote (4401)',
      lines: [reason],
      expiry: undefined,
    });
    expect(authSentence(refused('local', reason), NOW)).toBe(`handshake refused by this peer (4401): ${reason}`);
    expect(refusalTitle({ by: 'local', code: undefined, reason: 'this peer has no certificate yet' })).toBe('Refused by this peer');
  });

  it('captions a refused edge as refused, with the refusal’s reason rather than the socket’s words', () => {
    const c = connection('WsClient#9', {
      state: 'closed',
      transport: 'LAN',
      reason: 'ConnectionEnded (4401): bad certificate (UnknownIssuer)',
      refusal: { by: 'remote', code: 4401, reason: 'bad certificate (UnknownIssuer)' },
      retryInMs: 2_000,
    });
    expect(edgeCaptionLines(c, 0, 0)).toEqual({ state: 'refused · retry in 2 s', reason: 'bad certificate (UnknownIssuer)' });
    expect(edgeCaption({ ...c, refusal: { by: 'remote', code: 4408, reason: '' }, retryInMs: undefined }, 0, 0)).toBe('refused · Refused by the remote (4408)');
  });
});
