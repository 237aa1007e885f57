/**
 * The Eviction panel: each collection's strategy and schedule with Run now, Force and Dry run;
 * a chart of local documents, store size and memory with a mark for each eviction and each
 * re-sync; what the next run would evict, keep and bring back; the runs so far; and the
 * evict/re-sync scenario, run on this peer on demand, with its verdict and the fix.
 */
import { useInspector } from '../../store/index.ts';
import { isFirstLoad } from '../../store/remote.ts';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import { DryRunCard } from './DryRunCard.tsx';
import { EvictionChart } from './EvictionChart.tsx';
import { RunsCard } from './RunsCard.tsx';
import { ScenarioCard } from './ScenarioCard.tsx';
import { StrategiesCard } from './StrategiesCard.tsx';
import './eviction.css';

export function EvictionPanel() {
  const state = useInspector((s) => s.eviction.state);
  const load = useInspector((s) => s.loadEviction);
  if (isFirstLoad(state)) return <Loading>Loading the eviction strategies…</Loading>;
  if (state.value === undefined) {
    return (
      <div className="eviction">
        <ErrorNotice
          title="Could not load the eviction strategies"
          error={state.error ?? { code: 'internal/unexpected', message: 'no answer' }}
          onRetry={() => void load()}
        />
      </div>
    );
  }
  const value = state.value;
  return (
    <div className="panel-scroll">
      <div className="eviction">
        {state.status === 'error' && state.error !== undefined && (
          <ErrorNotice compact title="The last refresh failed; showing what the peer said before" error={state.error} onRetry={() => void load()} />
        )}
        <StrategiesCard state={value} receivedAt={state.receivedAt ?? Date.now()} />
        <EvictionChart state={value} />
        <div className="eviction-grid">
          <DryRunCard configured={value.collections.map((c) => c.strategy.collection)} />
          <ScenarioCard />
        </div>
        <RunsCard runs={value.runs} />
      </div>
    </div>
  );
}
