/**
 * The QA hold: takes the write slot for a while so that every other writer waits, to reproduce
 * blocked writes and watch their log lines climb from DEBUG to WARN to ERROR. It asks before
 * doing it, and says what it blocks.
 */
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { LevelBadge } from '../logs/LevelBadge.tsx';

/** Presets that land a waiting writer's lines in each level (spec section 8). */
const PRESETS = [
  { seconds: 5, level: undefined },
  { seconds: 15, level: 'DEBUG' },
  { seconds: 45, level: 'WARN' },
  { seconds: 150, level: 'ERROR' },
] as const;

export const MAX_HOLD_SECONDS = 600;

interface HoldDialogProps {
  readonly initialMs: number;
  readonly initialHint: string;
  readonly onHold: (ms: number, hint: string) => void;
  readonly onClose: () => void;
}

export function HoldDialog({ initialMs, initialHint, onHold, onClose }: HoldDialogProps) {
  const [seconds, setSeconds] = useState(String(Math.round(initialMs / 1000)));
  const [hint, setHint] = useState(initialHint);
  const secondsId = useId();
  const hintId = useId();
  const formId = useId();
  const value = Number(seconds);
  const valid = Number.isFinite(value) && value >= 1 && value <= MAX_HOLD_SECONDS;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!valid) return;
    onHold(Math.round(value * 1000), hint.trim() === '' ? 'inspector hold' : hint.trim());
    onClose();
  };
  return (
    <Dialog
      title="Hold the write slot"
      description="A QA tool to reproduce blocked writes on this peer."
      onClose={onClose}
      size="sm"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form={formId} variant="danger" className="btn-solid" disabled={!valid}>
            Hold for {valid ? `${value} s` : '…'}
          </Button>
        </>
      }
    >
      <form id={formId} className="txn-hold-form" onSubmit={submit}>
        <p className="txn-hold-warning">
          <Icon name="alert" size={16} />
          <span>
            While held, <strong>every writer of this peer waits</strong>: local writes, replication from other peers, internal jobs. None fails; each logs a
            “blocked” line every 10 s. “End hold” gives the slot back early; closing this inspector does too.
          </span>
        </p>
        <div className="field">
          <label className="field-label" htmlFor={secondsId}>
            Duration (seconds)
          </label>
          <div className="txn-hold-duration">
            <input
              id={secondsId}
              className="input mono"
              type="number"
              min={1}
              max={MAX_HOLD_SECONDS}
              step={1}
              value={seconds}
              aria-invalid={!valid}
              onChange={(e) => setSeconds(e.target.value)}
              autoFocus
            />
            <div className="txn-hold-presets" role="group" aria-label="Durations">
              {PRESETS.map((preset) => (
                <button
                  key={preset.seconds}
                  type="button"
                  className="btn btn-ghost"
                  aria-pressed={value === preset.seconds}
                  onClick={() => setSeconds(String(preset.seconds))}
                >
                  {preset.seconds} s{preset.level !== undefined && <LevelBadge level={preset.level} />}
                </button>
              ))}
            </div>
          </div>
          <span className="field-hint">A writer waiting up to 30 s logs at DEBUG, up to 120 s at WARN, beyond at ERROR. At most 10 minutes.</span>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={hintId}>
            Hint (names the hold in logs and in the timeline)
          </label>
          <input id={hintId} className="input" value={hint} maxLength={200} onChange={(e) => setHint(e.target.value)} />
        </div>
      </form>
    </Dialog>
  );
}
