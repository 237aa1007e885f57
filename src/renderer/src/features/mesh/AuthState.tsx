/**
 * A small peer's authentication, as the Peers and LAN lists show it: `verified` with the user its
 * certificate names and when that certificate expires, or `refused` with by whom and why (in
 * full: a reason is never cut).
 */
import type { MeshAuth } from '../../../../shared/inspector/mesh.ts';
import { Badge } from '../../ui/Badge.tsx';
import { authWords } from './mesh-model.ts';

export function AuthState({ auth, peerClock }: { readonly auth: MeshAuth; readonly peerClock: number }) {
  const words = authWords(auth, peerClock);
  return (
    <div className={`mesh-auth mesh-auth-${auth.state}`}>
      <span className="mesh-auth-head">
        <Badge
          tone={words.tone}
          title={
            auth.state === 'verified' ? 'Its certificate was verified offline against the issuer this peer trusts' : 'The handshake was refused: no session ran'
          }
        >
          {words.label}
        </Badge>
        {words.by !== undefined && <span className="mesh-auth-by">{words.by}</span>}
      </span>
      {words.lines.map((line) => (
        <span key={line} className="mesh-auth-line">
          {line}
        </span>
      ))}
      {words.expiry !== undefined && (
        <span className={words.expiry.expired ? 'mesh-auth-line mesh-auth-expiry is-expired' : 'mesh-auth-line mesh-auth-expiry'} title={words.expiry.exact}>
          {words.expiry.text}
        </span>
      )}
    </div>
  );
}
