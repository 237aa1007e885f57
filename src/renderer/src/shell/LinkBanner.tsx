/**
 * Says when the link to the peer is down (browser mode only: the Electron window's link cannot
 * drop). Panels keep showing what they had, dimmed. Reads made meanwhile wait for the link, and
 * the banner counts them, with Cancel; a change (a mutation, a sync start or stop, …) is refused
 * at once with `inspector/link-down`, never sent later.
 */
import { cancelWaitingCalls } from '../client/index.ts';
import { useInspector } from '../store/index.ts';
import { Button } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';

export function LinkBanner() {
  const link = useInspector((s) => s.link);
  const epoch = useInspector((s) => s.linkEpoch);
  const waiting = useInspector((s) => s.waitingCalls);
  // The slot stays in the layout's grid row, empty while the link is up. The first connection
  // is not news: panels show their own loading state meanwhile.
  if (link === 'open' || (link === 'connecting' && epoch === 0)) return <div className="link-banner-slot" />;
  return (
    <div className="link-banner-slot link-banner" role="alert" data-link={link}>
      <Icon name="unlink" size={16} />
      <span>
        <strong>{link === 'closed' ? 'Disconnected from the peer.' : 'Reconnecting to the peer…'}</strong> What is shown is from before the link dropped; it
        refreshes once the link is back. Changes are not sent while it is down.
      </span>
      {waiting > 0 && (
        <span className="link-banner-waiting">
          {waiting} {waiting === 1 ? 'read waits' : 'reads wait'} for the link{' '}
          <Button variant="ghost" onClick={cancelWaitingCalls}>
            Cancel
          </Button>
        </span>
      )}
      <span className="spinner" aria-hidden="true" />
    </div>
  );
}
