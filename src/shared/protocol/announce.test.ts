import { describe, expect, it } from 'vitest';
import { OUTER_PROTOCOL_VERSION, checkAcceptorAnnouncement, checkPeerAnnouncement } from './announce.ts';

const CERT = { claims: 'eyJhcHBJRCI6ImFwcCJ9', signature: 'c2lnbmF0dXJl' };

function peerAnnouncement(): Record<string, unknown> {
  return {
    type: 'announce',
    peerKey: 'pk-small',
    appID: 'app',
    outer_protocol_version: OUTER_PROTOCOL_VERSION,
    certificate: { ...CERT },
    proof: 'proof-of-challenge',
    nonce: 'dialer-nonce',
  };
}

function bigPeerAnswer(): Record<string, unknown> {
  return { type: 'announce', role: 'big-peer', peerKey: 'pk-big', appID: 'app', outer_protocol_version: OUTER_PROTOCOL_VERSION, proof: 'issuer-proof' };
}

function smallPeerAnswer(): Record<string, unknown> {
  return { ...bigPeerAnswer(), role: 'small-peer', peerKey: 'pk-other', certificate: { ...CERT }, proof: 'peer-proof' };
}

function peerRefusal(value: unknown): string {
  const check = checkPeerAnnouncement(value);
  if (check.ok) throw new Error(`accepted: ${JSON.stringify(check.value)}`);
  return check.reason;
}

function answerRefusal(value: unknown): string {
  const check = checkAcceptorAnnouncement(value);
  if (check.ok) throw new Error(`accepted: ${JSON.stringify(check.value)}`);
  return check.reason;
}

describe('device names in announcements', () => {
  it('carries a device name, trimmed, in either announcement', () => {
    const peer = checkPeerAnnouncement({ ...peerAnnouncement(), deviceName: '  till 3 ' });
    expect(peer.ok && peer.value.deviceName).toBe('till 3');
    const answer = checkAcceptorAnnouncement({ ...bigPeerAnswer(), deviceName: 'cloud-east' });
    expect(answer.ok && answer.value.deviceName).toBe('cloud-east');
  });

  it('leaves a blank device name out', () => {
    const peer = checkPeerAnnouncement({ ...peerAnnouncement(), deviceName: '   ' });
    expect(peer.ok && 'deviceName' in peer.value).toBe(false);
  });

  it('refuses a device name that is not a string or is longer than 100 characters', () => {
    expect(peerRefusal({ ...peerAnnouncement(), deviceName: 42 })).toBe('deviceName must be a string of at most 100 characters');
    expect(answerRefusal({ ...smallPeerAnswer(), deviceName: 'x'.repeat(101) })).toBe('deviceName must be a string of at most 100 characters');
  });
});

describe('checkPeerAnnouncement', () => {
  it('accepts a well-formed announcement and returns only its fields', () => {
    const input = { ...peerAnnouncement(), extra: 'dropped', certificate: { ...CERT, extra: 'dropped' } };
    expect(checkPeerAnnouncement(input)).toStrictEqual({
      ok: true,
      value: {
        type: 'announce',
        peerKey: 'pk-small',
        appID: 'app',
        outer_protocol_version: OUTER_PROTOCOL_VERSION,
        certificate: CERT,
        proof: 'proof-of-challenge',
        nonce: 'dialer-nonce',
      },
    });
  });

  it('refuses another outer_protocol_version, saying which it speaks', () => {
    for (const version of [1, OUTER_PROTOCOL_VERSION + 1, 0, -2, 2.5]) {
      expect(peerRefusal({ ...peerAnnouncement(), outer_protocol_version: version })).toBe(
        `outer_protocol_version ${version} is not supported (this peer speaks ${OUTER_PROTOCOL_VERSION})`,
      );
    }
    expect(peerRefusal({ ...peerAnnouncement(), outer_protocol_version: 1 })).toBe('outer_protocol_version 1 is not supported (this peer speaks 2)');
  });

  it('refuses a missing or non-numeric outer_protocol_version', () => {
    const input = peerAnnouncement();
    delete input.outer_protocol_version;
    expect(peerRefusal(input)).toBe('outer_protocol_version is missing');
    expect(peerRefusal({ ...peerAnnouncement(), outer_protocol_version: String(OUTER_PROTOCOL_VERSION) })).toBe('outer_protocol_version is missing');
  });

  it('refuses an announcement without a nonce or with an empty one', () => {
    const input = peerAnnouncement();
    delete input.nonce;
    expect(peerRefusal(input)).toBe('nonce must be a non-empty string for the answer to sign');
    expect(peerRefusal({ ...peerAnnouncement(), nonce: '' })).toBe('nonce must be a non-empty string for the answer to sign');
    expect(peerRefusal({ ...peerAnnouncement(), nonce: 42 })).toBe('nonce must be a non-empty string for the answer to sign');
  });

  it('refuses an announcement without a proof, a peer key or an app id', () => {
    const noProof = peerAnnouncement();
    delete noProof.proof;
    expect(peerRefusal(noProof)).toBe('proof must be the signature of the challenge, a non-empty string');
    expect(peerRefusal({ ...peerAnnouncement(), peerKey: '' })).toBe('peerKey must be a non-empty string');
    expect(peerRefusal({ ...peerAnnouncement(), appID: 'a'.repeat(4097) })).toBe('appID must be a non-empty string');
  });

  it('refuses an announcement whose certificate is missing or not {claims, signature}', () => {
    for (const certificate of [undefined, null, 'cert', [], { claims: 'c' }, { claims: 1, signature: 's' }]) {
      expect(peerRefusal({ ...peerAnnouncement(), certificate })).toBe('certificate must be {"claims": "…", "signature": "…"}');
    }
  });

  it('refuses a value that is not an announcement object', () => {
    for (const value of [null, 'announce', [], 3]) expect(peerRefusal(value)).toBe('the announcement is not a JSON object');
    expect(peerRefusal({ ...peerAnnouncement(), type: 'challenge' })).toBe('the first message must be {"type": "announce", …}');
  });
});

describe('checkAcceptorAnnouncement', () => {
  it('accepts a Big Peer answer without a certificate and returns only its fields', () => {
    expect(checkAcceptorAnnouncement({ ...bigPeerAnswer(), nonce: 'dropped', extra: 'dropped' })).toStrictEqual({
      ok: true,
      value: { type: 'announce', role: 'big-peer', peerKey: 'pk-big', appID: 'app', outer_protocol_version: OUTER_PROTOCOL_VERSION, proof: 'issuer-proof' },
    });
  });

  it('drops a certificate shown by a Big Peer', () => {
    const check = checkAcceptorAnnouncement({ ...bigPeerAnswer(), certificate: { ...CERT } });
    expect(check.ok && Object.keys(check.value)).not.toContain('certificate');
  });

  it('accepts a small peer answer with its certificate and returns only its fields', () => {
    expect(checkAcceptorAnnouncement({ ...smallPeerAnswer(), certificate: { ...CERT, extra: 'dropped' }, extra: 'dropped' })).toStrictEqual({
      ok: true,
      value: {
        type: 'announce',
        role: 'small-peer',
        peerKey: 'pk-other',
        appID: 'app',
        outer_protocol_version: OUTER_PROTOCOL_VERSION,
        certificate: CERT,
        proof: 'peer-proof',
      },
    });
  });

  it('refuses a small peer answer without a certificate', () => {
    const input = smallPeerAnswer();
    delete input.certificate;
    expect(answerRefusal(input)).toBe('a small peer must show its certificate {"claims": "…", "signature": "…"}');
    expect(answerRefusal({ ...smallPeerAnswer(), certificate: { claims: 'c' } })).toBe(
      'a small peer must show its certificate {"claims": "…", "signature": "…"}',
    );
  });

  it('refuses an unknown or missing role', () => {
    for (const role of ['bigpeer', 'Big-Peer', 'peer', '', undefined, 1]) {
      expect(answerRefusal({ ...bigPeerAnswer(), role })).toBe('role must be "big-peer" or "small-peer"');
    }
  });

  it('refuses another outer_protocol_version, saying which it speaks, and marks the refusal as a version mismatch', () => {
    const check = checkAcceptorAnnouncement({ ...bigPeerAnswer(), outer_protocol_version: 1 });
    expect(check).toStrictEqual({ ok: false, reason: `outer_protocol_version 1 is not supported (this peer speaks ${OUTER_PROTOCOL_VERSION})`, version: true });
    const missing = checkAcceptorAnnouncement({ ...bigPeerAnswer(), outer_protocol_version: undefined });
    expect(missing).toStrictEqual({ ok: false, reason: 'outer_protocol_version is missing', version: true });
  });

  it('refuses an answer without a proof, a peer key or an app id, not as a version mismatch', () => {
    expect(checkAcceptorAnnouncement({ ...bigPeerAnswer(), proof: '' })).toStrictEqual({ ok: false, reason: 'proof must be a non-empty string' });
    expect(checkAcceptorAnnouncement({ ...bigPeerAnswer(), peerKey: null })).toStrictEqual({ ok: false, reason: 'peerKey must be a non-empty string' });
    expect(checkAcceptorAnnouncement({ ...bigPeerAnswer(), appID: 7 })).toStrictEqual({ ok: false, reason: 'appID must be a non-empty string' });
  });

  it('refuses a value that is not an answer object', () => {
    for (const value of [null, 'announce', [], 3]) expect(answerRefusal(value)).toBe('the answer is not a JSON object');
    expect(answerRefusal({ ...bigPeerAnswer(), type: 'subscription' })).toBe('the answer must be {"type": "announce", …}');
  });
});
