/**
 * The Documents panel: collections on the left; the DQL console above the result (a virtualized
 * table or JSON, paged from the peer); the selected document with its merge metadata on the right.
 */
import { useInspector } from '../../store/index.ts';
import { SplitPane } from '../../ui/SplitPane.tsx';
import { CollectionList } from './CollectionList.tsx';
import { Console } from './Console.tsx';
import { DocumentDetail } from './DocumentDetail.tsx';
import { DocumentDialogs } from './DocumentDialogs.tsx';
import { ResultsPane } from './ResultsPane.tsx';
import './documents.css';

export function DocumentsPanel() {
  const layout = useInspector((s) => s.documentsView.layout);
  const detailOpen = useInspector((s) => s.documentsView.detailOpen);
  const setLayout = useInspector((s) => s.setDocumentsLayout);
  const center = (
    <SplitPane
      direction="column"
      sized="first"
      size={layout.console}
      min={96}
      max={640}
      onResize={(console) => setLayout({ console })}
      label="Resize the console"
      first={<Console />}
      second={<ResultsPane />}
    />
  );
  return (
    <div className="panel documents">
      <SplitPane
        direction="row"
        sized="first"
        size={layout.sidebar}
        min={150}
        max={420}
        onResize={(sidebar) => setLayout({ sidebar })}
        label="Resize the collection list"
        first={<CollectionList />}
        second={
          <SplitPane
            direction="row"
            sized="second"
            size={layout.detail}
            min={280}
            max={900}
            collapsed={!detailOpen}
            onResize={(detail) => setLayout({ detail })}
            label="Resize the document pane"
            first={center}
            second={<DocumentDetail />}
          />
        }
      />
      <DocumentDialogs />
    </div>
  );
}
