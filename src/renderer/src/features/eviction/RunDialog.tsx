/**
 * Asks before Run now or Force: what the run will do (from the dry run asked as the dialog
 * opens), that eviction removes documents from this peer's disk only, and for Force what it
 * overrides (the once-a-day rule, a recent blocked write) and what it does not (an overlap).
 * When the dry run predicts a refusal that the button would not override, Cancel is the primary,
 * focused action and the run is the secondary, danger one ("anyway").
 */
import { useEffect, useRef } from 'react';
import type { EvictionCollectionInfo } from '../../../../shared/inspector/eviction.ts';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { formatCount, plural } from '../../ui/format.ts';
import { Loading } from '../../ui/states.tsx';
import { DqlText } from '../../ui/StatementView.tsx';
import { STRATEGY_NAMES, predictsRefusal } from './model.ts';

interface RunDialogProps {
  readonly collection: string;
  readonly force: boolean;
  readonly status: EvictionCollectionInfo | undefined;
  readonly onClose: () => void;
}

export function RunDialog({ collection, force, status, onClose }: RunDialogProps) {
  const dryRun = useInspector((s) => (s.eviction.dryRun?.collection === collection ? s.eviction.dryRun.result : undefined));
  const runEviction = useInspector((s) => s.runEviction);
  const dry = dryRun?.value;
  const kind = status === undefined ? undefined : STRATEGY_NAMES[status.strategy.kind];
  const refused = predictsRefusal(dry, force);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Once the refusal is known, Enter cancels: the focus moves to Cancel (also after the dialog took it).
  useEffect(() => {
    if (refused) cancelRef.current?.focus();
  }, [refused]);
  const run = (): void => {
    void runEviction(collection, force);
    onClose();
  };
  return (
    <Dialog
      title={force ? `Force the eviction of ${collection}` : `Run the eviction of ${collection} now`}
      description={kind === undefined ? undefined : `${kind} strategy`}
      onClose={onClose}
      size="md"
      footer={
        <>
          <Button ref={cancelRef} variant={refused ? 'primary' : 'default'} onClick={onClose}>
            Cancel
          </Button>
          <Button
            variant={force || refused ? 'danger' : 'primary'}
            className={force && !refused ? 'btn-solid' : undefined}
            icon="evict"
            onClick={run}
            title={refused ? 'The dry run says it would be refused now; run it anyway to see the refusal' : undefined}
          >
            {force ? 'Force run' : 'Run now'}
            {refused && ' anyway'}
          </Button>
        </>
      }
    >
      <div className="eviction-dialog">
        <p>Eviction removes documents from this peer’s disk only; other peers and the Big Peer keep them.</p>
        {dry === undefined ? (
          dryRun?.status === 'error' ? (
            <p className="muted">The dry run failed: {dryRun.error?.message}</p>
          ) : (
            <Loading inline>Asking what it would evict…</Loading>
          )
        ) : (
          <>
            <ol className="eviction-steps">
              {dry.cancel.map((s) => (
                <li key={`c${s}`}>
                  <span className="eviction-step">cancel</span> <DqlText text={s} />
                </li>
              ))}
              <li>
                <span className="eviction-step">run</span> <DqlText text={dry.evictStatement} />
                {dry.ttl !== undefined && <span className="muted"> with ttl = {dry.ttl}</span>} : <strong>{plural(dry.evict.count, 'document')}</strong>
              </li>
              <li>
                <span className="eviction-step">register</span> <DqlText text={dry.subscribeStatement} />
              </li>
            </ol>
            {dry.kept.count > 0 && <p>{formatCount(dry.kept.count)} flagged documents are kept: the Big Peer has not acknowledged their latest change.</p>}
            {dry.comeBack.length > 0 && (
              <p className="eviction-warning" role="alert">
                {dry.comeBack.map((c) => `${plural(c.comeBack, 'document')} would come back through ${c.statement}`).join('; ')}.
              </p>
            )}
            {dry.refusal !== undefined && (
              <p className="eviction-warning">
                It would be refused now: <code className="error-code">{dry.refusal.code}</code> {dry.refusal.message}
                {force && (dry.refusal.code === 'eviction/too-soon' || dry.refusal.code === 'eviction/write-blocked') ? ' Force overrides this.' : ''}
              </p>
            )}
          </>
        )}
        {force && (
          <p className="muted">
            Force runs it even if it ran less than a day ago or a write was blocked recently; the override is logged as WARN. An overlap still refuses it.
          </p>
        )}
      </div>
    </Dialog>
  );
}
