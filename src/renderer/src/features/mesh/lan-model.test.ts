import { describe, expect, it } from 'vitest';
import { advertisedText, lanEmptyWords, lanPeerStatus, noConnectionsHint, presentCount, sortLanPeers, transportChips, transportSentence } from './lan-model.ts';
import { LAN_URL, SMALL_B, STRANGER, connection, lanPeer, lanSnapshot, transport } from '../../../../testing/renderer/mesh-snapshots.ts';

describe('the words of the Mesh panel’s LAN and transports', () => {
  it('says a transport in one line, and groups those this platform lacks in the toolbar', () => {
    expect(transportSentence(transport('LAN'))).toBe('LAN: Ok, listening on ws://0.0.0.0:41000/_sync/ws, advertised over mDNS');
    const all = [transport('LAN', { condition: 'MdnsFailure', reason: 'the multicast socket cannot be opened' }), transport('BluetoothLE'), transport('AWDL')];
    expect(transportSentence(all[0]!)).toBe('LAN: MdnsFailure, the multicast socket cannot be opened');
    const chips = transportChips(all);
    expect(chips.shown.map((t) => t.transport)).toEqual(['LAN']);
    expect(chips.unavailable.map((t) => t.transport)).toEqual(['BluetoothLE', 'AWDL']);
  });

  it('says why a LAN peer is not synced with, as the peer said it', () => {
    const other = lanPeer('other-key', { appId: 'other', compatible: false, reason: 'another app (other): only peers of app sync with this one' });
    expect(lanPeerStatus(other, [])).toEqual({ tone: 'neutral', label: 'not synced', detail: 'another app (other): only peers of app sync with this one' });
    expect(advertisedText(lanPeer('future-key', { protocolVersion: 9 }))).toBe('app app · protocol 9');
    expect(advertisedText(lanPeer(undefined, { appId: undefined, protocolVersion: undefined }))).toBe('app (none) · protocol (none)');
  });

  it('gives a compatible LAN peer the state of its best connection, whichever side dialed', () => {
    const snap = lanSnapshot();
    const b = snap.lanPeers.find((p) => p.peerKey === SMALL_B)!;
    expect(lanPeerStatus(b, snap.connections)).toMatchObject({ tone: 'ok', label: 'syncing' });
    const dialing = [
      connection('WsClient#5', { transport: 'LAN', state: 'connecting', remotePeerKey: undefined, advertisedPeerKey: SMALL_B, address: LAN_URL }),
    ];
    expect(lanPeerStatus(b, dialing)).toMatchObject({ tone: 'warn', label: 'connecting' });
  });

  it('says why a compatible LAN peer is not connected, unless its refusal already says it', () => {
    const stranger = lanSnapshot().lanPeers.find((p) => p.peerKey === STRANGER)!;
    expect(lanPeerStatus(stranger, lanSnapshot().connections)).toEqual({ tone: 'warn', label: 'not connected', detail: undefined });
    const left = [
      connection('WsClient#6', { state: 'closed', transport: 'LAN', remotePeerKey: undefined, advertisedPeerKey: STRANGER, reason: 'the peer left the LAN' }),
    ];
    expect(lanPeerStatus({ ...stranger, present: false }, left)).toEqual({ tone: 'neutral', label: 'not connected', detail: 'the peer left the LAN' });
  });

  it('lists present peers first, those synced with first among them, then the most recently seen', () => {
    const sorted = sortLanPeers(lanSnapshot().lanPeers);
    expect(sorted.map((p) => p.peerKey)).toEqual([SMALL_B, STRANGER, 'other-key', 'future-key', 'gone-key']);
    expect(presentCount(lanSnapshot())).toBe(4);
  });

  it('explains an empty LAN list from the LAN transport’s condition', () => {
    expect(lanEmptyWords([]).title).toBe('LAN is off');
    expect(lanEmptyWords([transport('LAN')]).title).toBe('No peer seen on the LAN yet');
    expect(lanEmptyWords([transport('LAN', { condition: 'Stopped', reason: 'sync is stopped' })]).title).toBe('LAN is stopped');
    expect(lanEmptyWords([transport('LAN', { condition: 'TcpListenFailure', reason: 'the LAN transport cannot listen on 0.0.0.0:4000: EADDRINUSE' })])).toEqual(
      {
        title: 'LAN is not running (TcpListenFailure)',
        hint: 'the LAN transport cannot listen on 0.0.0.0:4000: EADDRINUSE',
      },
    );
    expect(noConnectionsHint([transport('LAN')])).toMatch(/^LAN runs/);
    expect(noConnectionsHint([])).toMatch(/^This peer syncs with no one now/);
  });

  it('does not count a LAN peer whose dials keep failing as present, and lists it after the reachable ones', () => {
    const vanished = lanPeer('vanished-key', { unreachable: { since: 8_000, attempts: 4 }, lastSeenAt: 9_500 });
    const here = lanPeer(SMALL_B, { lastSeenAt: 9_000 });
    expect(presentCount(lanSnapshot({ lanPeers: [vanished, here] }))).toBe(1);
    expect(sortLanPeers([vanished, here]).map((p) => p.peerKey)).toEqual([SMALL_B, 'vanished-key']);
    expect(lanPeerStatus(vanished, []).tone).toBe('neutral');
  });
});
