/**
 * "Go to document" (Alt+G, or the top bar's search button): a collection and an `_id`, typed;
 * the Documents panel then shows that document selected, on its sync trace, with the statement
 * that found it in the console (`goToDocument`).
 */
import { useState, type FormEvent } from 'react';
import { isNameWritable } from '../../../shared/inspector/statements.ts';
import { useInspector } from '../store/index.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';

export function GoToDocumentDialog() {
  const open = useInspector((s) => s.shellView.goToOpen);
  if (!open) return null;
  return <GoToForm />;
}

function GoToForm() {
  const setOpen = useInspector((s) => s.setGoToOpen);
  const goTo = useInspector((s) => s.goToDocument);
  const collections = useInspector((s) => s.overview.snapshot.value?.collections);
  const current = useInspector((s) => s.documentsView.collection);
  const names = (collections ?? []).map((c) => c.name);
  const [collection, setCollection] = useState(current ?? names.find((n) => !n.startsWith('__')) ?? names[0] ?? '');
  const [id, setId] = useState('');
  const ready = collection.trim() !== '' && isNameWritable(collection.trim()) && id.trim() !== '';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!ready) return;
    setOpen(false);
    void goTo(collection.trim(), id);
  };
  return (
    <Dialog title="Go to document" size="sm" onClose={() => setOpen(false)} description="Its sync trace: where this peer's version stands with each remote.">
      <form className="goto-form" aria-label="Go to document" onSubmit={submit}>
        <label className="field">
          <span className="field-label">Collection</span>
          <input className="input mono" value={collection} list="goto-collections" onChange={(event) => setCollection(event.target.value)} />
          <datalist id="goto-collections">
            {names.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span className="field-label">_id</span>
          <input className="input mono" value={id} placeholder="order-1042" autoFocus onChange={(event) => setId(event.target.value)} />
        </label>
        <Button type="submit" variant="primary" icon="arrowRight" disabled={!ready}>
          Go
        </Button>
      </form>
    </Dialog>
  );
}
