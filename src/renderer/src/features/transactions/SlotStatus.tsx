/**
 * The write slot now: who holds it and for how long, the writers waiting behind it (for how long,
 * and the level their next "blocked" line gets), the open read transactions; and the QA hold.
 */
import type { WriteSlotState } from '../../../../shared/inspector/transactions.ts';
import { StatusText } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { formatCount, formatDuration } from '../../ui/format.ts';
import { LevelBadge } from '../logs/LevelBadge.tsx';
import type { HoldState } from './slice.ts';
import { nextBlockedLogLevel } from './timeline-layout.ts';
import { writerName } from './transactions-model.ts';

interface SlotStatusProps {
  readonly slot: WriteSlotState | undefined;
  /** Milliseconds since the slot was polled: its durations have grown by that much. */
  readonly age: number;
  readonly hold: HoldState;
  readonly now: number;
  readonly onHold: () => void;
  readonly onRelease: () => void;
}

export function SlotStatus({ slot, age, hold, now, onHold, onRelease }: SlotStatusProps) {
  const holder = slot?.holder;
  return (
    <section className="txn-slot" aria-label="Write slot now">
      <div className="txn-slot-cell">
        <span className="txn-slot-label">Write slot</span>
        {slot === undefined ? (
          <span className="faint">…</span>
        ) : holder === undefined ? (
          <StatusText tone="ok">Free</StatusText>
        ) : (
          <span className="txn-slot-holder" data-testid="slot-holder">
            <StatusText tone={slot.waiting.length > 0 ? 'warn' : 'info'} pulse>
              Held
            </StatusText>
            <span>
              by <strong>txn #{holder.txnId}</strong> <OriginatorTag originator={holder.originator} />{' '}
              {holder.hint !== undefined && <q className="txn-hint">{holder.hint}</q>} for{' '}
              <strong className="tabular">{formatDuration(holder.heldMs + age)}</strong>
            </span>
          </span>
        )}
      </div>

      <div className="txn-slot-cell txn-slot-waiting">
        <span className="txn-slot-label">Waiting</span>
        {slot === undefined || slot.waiting.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="txn-waiting-list" aria-label="Writers waiting for the slot">
            {slot.waiting.map((writer, i) => {
              const waitingMs = writer.waitingMs + age;
              const level = age === 0 ? writer.logLevel : nextBlockedLogLevel(waitingMs);
              return (
                <li
                  key={i}
                  className={`txn-waiting txn-waiting-${level.toLowerCase()}`}
                  title={`${writerName(writer.originator, writer.hint)} has waited ${formatDuration(waitingMs)}; its next "blocked" line will be ${level}`}
                >
                  <OriginatorTag originator={writer.originator} />
                  {writer.hint !== undefined && <q className="txn-hint">{writer.hint}</q>}
                  <strong className="tabular">{formatDuration(waitingMs)}</strong>
                  <LevelBadge level={level} />
                </li>
              );
            })}
          </ul>
        )}
      </div>

      <div className="txn-slot-cell">
        <span className="txn-slot-label">Open reads</span>
        <strong className="tabular" data-testid="open-reads">
          {slot === undefined ? '…' : formatCount(slot.openReadTransactions)}
        </strong>
      </div>

      <div className="txn-slot-hold">
        <HoldStatus hold={hold} now={now} />
        {hold.status === 'waiting' || hold.status === 'held' ? (
          <Button variant="danger" className="btn-solid" icon="x" onClick={onRelease} title="Give the write slot back now: the writers waiting go on">
            End hold
          </Button>
        ) : (
          <Button icon="hold" variant="danger" onClick={onHold}>
            Hold the write slot…
          </Button>
        )}
      </div>
    </section>
  );
}

function HoldStatus({ hold, now }: { readonly hold: HoldState; readonly now: number }) {
  if (hold.status === 'waiting')
    return (
      <span className="txn-hold-status" role="status">
        Waiting for the slot to start the hold…
      </span>
    );
  if (hold.status === 'held' && hold.endsAt !== undefined) {
    return (
      <>
        <span className="txn-hold-status is-active" role="status">
          Holding as txn #{hold.txnId} · ends in <strong className="tabular">{formatDuration(Math.max(0, hold.endsAt - now))}</strong>
        </span>
        {hold.error !== undefined && (
          <span className="txn-hold-status is-error" role="alert" title={hold.error.code}>
            Could not end it: {hold.error.message}
          </span>
        )}
      </>
    );
  }
  if (hold.status === 'error' && hold.error !== undefined) {
    return (
      <span className="txn-hold-status is-error" role="alert" title={hold.error.code}>
        Hold refused: {hold.error.message}
      </span>
    );
  }
  return null;
}

export function OriginatorTag({ originator }: { readonly originator: string }) {
  return <span className={`txn-originator txn-${originator.toLowerCase()}`}>{originator}</span>;
}
