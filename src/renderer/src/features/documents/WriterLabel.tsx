/** Who wrote a value: their role (this peer, the Big Peer, a connected peer, unknown) and their key; when. */
import type { WriteStamp } from '../../../../shared/inspector/documents.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { formatTimestamp, shortKey } from '../../ui/format.ts';
import { usePeerNames } from '../../ui/peer-names-context.ts';

const ROLES: Readonly<Record<WriteStamp['writerRole'], { readonly tone: Tone; readonly label: string; readonly title: string }>> = {
  local: { tone: 'accent', label: 'this peer', title: 'Written on this peer' },
  'big-peer': { tone: 'info', label: 'Big Peer', title: 'Written by the Big Peer' },
  remote: { tone: 'neutral', label: 'peer', title: 'Written by a connected small peer' },
  unknown: {
    tone: 'neutral',
    label: 'other peer',
    title: 'Written by a peer with no direct connection to this one now (its writes may have come through the Big Peer)',
  },
};

export function WriterLabel({ stamp }: { readonly stamp: WriteStamp }) {
  const role = ROLES[stamp.writerRole];
  const name = usePeerNames().get(stamp.writer);
  return (
    <span className="writer">
      <Badge tone={role.tone} title={role.title}>
        {role.label}
      </Badge>
      {name !== undefined && (
        <span className="writer-name" data-testid="writer-name" title={`Device name from its presence document; peer key ${stamp.writer}`}>
          {name}
        </span>
      )}
      <code className="writer-key" title={stamp.writer}>
        {shortKey(stamp.writer, 8, 4)}
      </code>
    </span>
  );
}

export function StampTime({ stamp }: { readonly stamp: WriteStamp }) {
  return (
    <time className="stamp-time" dateTime={stamp.time} title={`HLC ${stamp.hlc}`}>
      {formatTimestamp(stamp.time)}
    </time>
  );
}
