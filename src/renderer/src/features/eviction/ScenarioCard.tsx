/**
 * The evict/re-sync scenario, run against this peer on demand: N documents in its own collection,
 * evicted K times the wrong way (the find-all subscription left in place: they come straight
 * back) and K times the right way (spec 3.2: nothing comes back). Rows appear as each cycle ends;
 * then the verdict, and the fix in words.
 */
import { useId, type FormEvent } from 'react';
import { MAX_SCENARIO_CYCLES, MAX_SCENARIO_DOCS, type EvictionScenarioCycle } from '../../../../shared/inspector/eviction.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { formatBytes, formatCount, formatElapsed } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { Section } from '../../ui/Section.tsx';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import { scenarioTotals, verdictText } from './model.ts';

/** The collection the scenario writes to (the peer's EVICT_LOOP_COLLECTION). */
const SCENARIO_COLLECTION = 'evict_loop_demo';

/** A whole number within bounds, or undefined. */
export function scenarioNumber(text: string, max: number): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= 1 && n <= max ? n : undefined;
}

export function ScenarioCard() {
  const scenario = useInspector((s) => s.eviction.scenario);
  const view = useInspector((s) => s.evictionView);
  const { setScenarioInputs, runEvictionScenario, cancelEvictionScenario } = useInspector.getState();
  const docsId = useId();
  const cyclesId = useId();
  const docs = scenarioNumber(view.scenarioDocs, MAX_SCENARIO_DOCS);
  const cycles = scenarioNumber(view.scenarioCycles, MAX_SCENARIO_CYCLES);
  const running = scenario.status === 'running';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (docs !== undefined && cycles !== undefined) void runEvictionScenario(docs, cycles);
  };
  const total = scenario.cycles * 2;
  return (
    <Section
      card
      className="eviction-scenario"
      title="Evict/re-sync scenario"
      description="Reproduces the loop on this peer, then shows the fix. It needs sync with a Big Peer, and writes to its own collection, evict_loop_demo."
    >
      <form className="eviction-scenario-form" onSubmit={submit} aria-label="Scenario">
        <label className="field" htmlFor={docsId}>
          <span className="field-label">Documents</span>
          <input
            id={docsId}
            className="input"
            inputMode="numeric"
            value={view.scenarioDocs}
            aria-invalid={docs === undefined}
            disabled={running}
            onChange={(e) => setScenarioInputs(e.target.value, view.scenarioCycles)}
          />
        </label>
        <label className="field" htmlFor={cyclesId}>
          <span className="field-label">Cycles each way</span>
          <input
            id={cyclesId}
            className="input"
            inputMode="numeric"
            value={view.scenarioCycles}
            aria-invalid={cycles === undefined}
            disabled={running}
            onChange={(e) => setScenarioInputs(view.scenarioDocs, e.target.value)}
          />
        </label>
        <Button type="submit" variant="primary" icon="play" busy={running} disabled={docs === undefined || cycles === undefined}>
          Run scenario
        </Button>
        {running && (
          <Button
            busy={scenario.cancelling}
            onClick={() => void cancelEvictionScenario()}
            title="Stop the scenario between steps and put the peer back as it was (its strategy and subscriptions removed)"
          >
            Cancel
          </Button>
        )}
        {(docs === undefined || cycles === undefined) && (
          <span className="field-hint">
            1 to {formatCount(MAX_SCENARIO_DOCS)} documents, 1 to {MAX_SCENARIO_CYCLES} cycles
          </span>
        )}
      </form>
      {running && (
        <Loading inline>
          {scenario.origin === 'elsewhere' ? 'A scenario started from another window is running' : 'Running'}: {scenario.rows.length} of {total} cycles done…
        </Loading>
      )}
      {scenario.status === 'error' && scenario.error !== undefined && <ErrorNotice compact title="The scenario did not finish" error={scenario.error} />}
      {scenario.status === 'cancelled' && (
        <p className="eviction-scenario-cancelled" role="status" data-testid="scenario-cancelled">
          <Icon name="alert" size={16} />
          <span>
            <strong>Cancelled</strong> after {scenario.rows.length} of {total} cycles. The peer was put back as it was: the scenario’s strategy and
            subscriptions are gone, and the eviction schedule ran on throughout. The documents it wrote stay in {SCENARIO_COLLECTION}.
          </span>
        </p>
      )}
      {scenario.rows.length > 0 && <ScenarioRows rows={scenario.rows} />}
      {scenario.status === 'done' && scenario.report === undefined && (
        <p className="muted">That scenario was started from another window, which got its verdict.</p>
      )}
      {scenario.report !== undefined && (
        <div className="eviction-verdict" data-testid="scenario-verdict">
          <p className={`eviction-verdict-line ${scenario.report.loopDetected && scenario.report.rightWayClean ? 'is-reproduced' : 'is-odd'}`} role="status">
            <Icon name={scenario.report.loopDetected && scenario.report.rightWayClean ? 'check' : 'alert'} size={16} />
            <span>
              <strong>Verdict.</strong> {verdictText(scenario.report.verdict)}
            </span>
          </p>
          <div className="eviction-fix">
            <h3>The fix</h3>
            <p>{scenario.report.fix}</p>
          </div>
        </div>
      )}
    </Section>
  );
}

function ScenarioRows({ rows }: { readonly rows: readonly EvictionScenarioCycle[] }) {
  return (
    <table className="data-table eviction-scenario-table" aria-label="Scenario cycles">
      <thead>
        <tr>
          <th scope="col">Way</th>
          <th scope="col" className="num">
            Cycle
          </th>
          <th scope="col" className="num">
            Evicted
          </th>
          <th scope="col" className="num">
            Re-synced
          </th>
          <th scope="col" className="num">
            Store
          </th>
          <th scope="col" className="num">
            Memory
          </th>
          <th scope="col" className="num">
            Received
          </th>
          <th scope="col" className="num">
            Took
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.way}-${row.cycle}`} className={`is-${row.way}`}>
            <td>
              <Badge tone={row.way === 'wrong' ? 'danger' : 'ok'}>{row.way === 'wrong' ? 'wrong way' : 'right way'}</Badge>
            </td>
            <td className="num">{row.cycle}</td>
            <td className="num">{formatCount(row.evicted)}</td>
            <td className={`num${row.resynced > 0 ? ' eviction-resynced' : ''}`}>{formatCount(row.resynced)}</td>
            <td className="num">{formatBytes(row.storeBytes)}</td>
            <td className="num">{formatBytes(row.memoryBytes)}</td>
            <td className="num">{formatBytes(row.bytesReceived)}</td>
            <td className="num">{formatElapsed(row.durationMs)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        {(['wrong', 'right'] as const).map((way) => {
          const t = scenarioTotals(rows, way);
          return (
            <tr key={way}>
              <td colSpan={2} className="eviction-total">
                {way === 'wrong' ? 'Wrong way' : 'Right way'} total
              </td>
              <td className="num">{formatCount(t.evicted)}</td>
              <td className={`num${t.resynced > 0 ? ' eviction-resynced' : ''}`}>{formatCount(t.resynced)}</td>
              <td colSpan={2} />
              <td className="num">{formatBytes(t.bytesReceived)}</td>
              <td />
            </tr>
          );
        })}
      </tfoot>
    </table>
  );
}
