/**
 * The dialogs of the document actions. Each shows the exact statement and arguments it will run
 * through `documents:query` (live, as the JSON is edited), runs it, or puts it in the console.
 */
import { useState } from 'react';
import { deleteDocument, EditError, evictDocument, insertDocument, updateDocument, type Statement } from '../../../../shared/inspector/statements.ts';
import type { JsonObject } from '../../../../shared/json.ts';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { CodeEditor } from '../../ui/code-editor/CodeEditor.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { compactJson } from '../../ui/format.ts';
import { MOD } from '../../ui/platform.ts';
import { StatementView } from '../../ui/StatementView.tsx';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import type { DocumentDialog } from './slice.ts';

export function DocumentDialogs() {
  const dialog = useInspector((s) => s.documentsView.dialog);
  if (dialog === undefined) return null;
  if (dialog.kind === 'insert') return <InsertDialog collection={dialog.collection} />;
  if (dialog.kind === 'edit') return <EditDialog dialog={dialog} />;
  return <ConfirmDialog dialog={dialog} />;
}

/** The footer every action dialog shares: the action's error, Open in console, Cancel, Run. */
function ActionFooter({
  label,
  runLabel,
  statement,
  danger = false,
}: {
  readonly label: string;
  readonly runLabel: string;
  readonly statement: Statement | undefined;
  readonly danger?: boolean;
}) {
  const action = useInspector((s) => s.documents.action);
  const runAction = useInspector((s) => s.runAction);
  const openInConsole = useInspector((s) => s.useInConsole);
  const close = useInspector((s) => s.openDialog);
  return (
    <>
      <span className="dialog-footer-note">Runs through documents:query, as you would in the console.</span>
      <Button variant="ghost" icon="terminal" disabled={statement === undefined} onClick={() => statement !== undefined && openInConsole(statement)}>
        Open in console
      </Button>
      <Button onClick={() => close(undefined)}>Cancel</Button>
      <Button
        variant={danger ? 'danger' : 'primary'}
        className={danger ? 'btn-solid' : undefined}
        busy={action.status === 'loading'}
        disabled={statement === undefined}
        shortcut={`${MOD}↵`}
        onClick={() => statement !== undefined && void runAction(label, statement)}
      >
        {runLabel}
      </Button>
    </>
  );
}

function ActionError() {
  const action = useInspector((s) => s.documents.action);
  return action.status === 'error' && action.error !== undefined ? (
    <ErrorNotice compact title="The statement failed; nothing was written" error={action.error} />
  ) : null;
}

function parseDocument(text: string): { readonly doc: JsonObject } | { readonly problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'A document is a JSON object: { "field": value, … }.' };
    return { doc: value as JsonObject };
  } catch (error) {
    return { problem: `Not JSON yet: ${(error as Error).message}` };
  }
}

function InsertDialog({ collection }: { readonly collection: string }) {
  const close = useInspector((s) => s.openDialog);
  const runAction = useInspector((s) => s.runAction);
  const [text, setText] = useState('{\n  \n}');
  const parsed = parseDocument(text);
  const statement = 'doc' in parsed ? insertDocument(collection, parsed.doc) : undefined;
  return (
    <Dialog
      size="lg"
      title={`Insert a document into ${collection}`}
      description="Leave out _id and the peer makes one (a UUID v7, so later inserts sort later)."
      onClose={() => close(undefined)}
      footer={<ActionFooter label="Insert document" runLabel="Insert" statement={statement} />}
    >
      <div className="action-dialog">
        <div className="action-editor code-editor-boxed">
          <CodeEditor
            language="json"
            ariaLabel="Document (JSON)"
            value={text}
            onChange={setText}
            autoFocus
            onRun={() => statement !== undefined && void runAction('Insert document', statement)}
          />
        </div>
        {'problem' in parsed && <p className="action-problem">{parsed.problem}</p>}
        {statement !== undefined && <StatementView statement={statement.statement} args={statement.args} />}
        <ActionError />
      </div>
    </Dialog>
  );
}

function EditDialog({ dialog }: { readonly dialog: Extract<DocumentDialog, { kind: 'edit' }> }) {
  const detail = useInspector((s) => s.documents.detail);
  const close = useInspector((s) => s.openDialog);
  const original = detail.value?.value ?? undefined;
  const title = `Edit ${compactJson(dialog.id, 60)} in ${dialog.collection}`;
  if (original === undefined) {
    return (
      <Dialog size="lg" title={title} onClose={() => close(undefined)}>
        <Loading>Reading the stored document…</Loading>
      </Dialog>
    );
  }
  return <EditForm title={title} collection={dialog.collection} original={original} />;
}

function EditForm({ title, collection, original }: { readonly title: string; readonly collection: string; readonly original: JsonObject }) {
  const close = useInspector((s) => s.openDialog);
  const runAction = useInspector((s) => s.runAction);
  const fields = useInspector((s) => s.documents.detail.value?.fields);
  const [text, setText] = useState(() => JSON.stringify(original, null, 2));
  const counters = new Set((fields ?? []).filter((f) => f.kind === 'counter').map((f) => f.path));
  const { statement, problem } = editStatement(collection, original, text, counters);
  return (
    <Dialog
      size="lg"
      title={title}
      description="Only the fields you change are written (SET, UNSET, or PN_INCREMENT for counters), so the others keep their merge stamps."
      onClose={() => close(undefined)}
      footer={<ActionFooter label="Edit document" runLabel="Save" statement={statement} />}
    >
      <div className="action-dialog">
        <div className="action-editor code-editor-boxed">
          <CodeEditor
            language="json"
            ariaLabel="Document (JSON)"
            value={text}
            onChange={setText}
            autoFocus
            onRun={() => statement !== undefined && void runAction('Edit document', statement)}
          />
        </div>
        {problem !== undefined && <p className="action-problem">{problem}</p>}
        {statement !== undefined && <StatementView statement={statement.statement} args={statement.args} />}
        <ActionError />
      </div>
    </Dialog>
  );
}

function editStatement(
  collection: string,
  original: JsonObject,
  text: string,
  counters: ReadonlySet<string>,
): { readonly statement?: Statement; readonly problem?: string } {
  const parsed = parseDocument(text);
  if ('problem' in parsed) return { problem: parsed.problem };
  try {
    const statement = updateDocument(collection, original, parsed.doc, { counters });
    return statement === undefined ? { problem: 'Nothing changed yet.' } : { statement };
  } catch (error) {
    if (error instanceof EditError || error instanceof RangeError) return { problem: error.message };
    throw error;
  }
}

const CONFIRM_TEXT = {
  delete: {
    title: 'Delete this document?',
    label: 'Delete document',
    run: 'Delete',
    explain:
      'DELETE writes a tombstone that replicates: the document disappears from every peer that syncs this collection. Only its _id and the deletion stamp are kept.',
  },
  evict: {
    title: 'Evict this document from this peer?',
    label: 'Evict document',
    run: 'Evict',
    explain:
      'EVICT removes this peer’s copy and its metadata only. Nothing replicates; while this peer subscribes to the document, a peer that holds it may sync it back.',
  },
} as const;

function ConfirmDialog({ dialog }: { readonly dialog: Extract<DocumentDialog, { kind: 'delete' | 'evict' }> }) {
  const close = useInspector((s) => s.openDialog);
  const text = CONFIRM_TEXT[dialog.kind];
  const statement = dialog.kind === 'delete' ? deleteDocument(dialog.collection, dialog.id) : evictDocument(dialog.collection, dialog.id);
  return (
    <Dialog
      size="md"
      title={text.title}
      description={text.explain}
      onClose={() => close(undefined)}
      footer={<ActionFooter label={text.label} runLabel={text.run} statement={statement} danger={dialog.kind === 'delete'} />}
    >
      <div className="action-dialog">
        <StatementView statement={statement.statement} args={statement.args} />
        <ActionError />
      </div>
    </Dialog>
  );
}
