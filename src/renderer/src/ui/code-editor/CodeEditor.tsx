/**
 * A CodeMirror editor for DQL or JSON.
 *
 * It lives in a shadow root on purpose. CodeMirror injects its styles at run time; in a document
 * it does so with a `<style>` element, which the page's Content-Security-Policy
 * (`style-src 'self'`, no nonce) refuses, while in a shadow root it uses a constructed style sheet
 * (`adoptedStyleSheets`), which the policy does not govern. The page's CSS custom properties
 * inherit into the shadow root, so the editor follows the theme.
 */
import { closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap, completionStatus } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, indentOnInput } from '@codemirror/language';
import { Compartment, EditorState, Prec, StateEffect, StateField, type Extension } from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder as placeholderText,
  type DecorationSet,
} from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { dqlLanguage } from './dql-language.ts';
import { inspectorEditorTheme } from './theme.ts';

/** A position to mark as the error's (1-based, as the peer's `ParseError` gives it). */
export interface EditorErrorMark {
  readonly line: number;
  readonly column: number;
}

export interface CodeEditorProps {
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly language: 'dql' | 'json';
  /** The editor's accessible name (`DQL statement`, `Arguments (JSON)`). */
  readonly ariaLabel: string;
  readonly placeholder?: string;
  /** Mod-Enter. */
  readonly onRun?: () => void;
  /** Mod-ArrowUp (-1) and Mod-ArrowDown (+1). */
  readonly onHistory?: (direction: -1 | 1) => void;
  /** Collection names to complete (DQL). */
  readonly completions?: readonly string[];
  /** Fields to complete by collection (DQL), and the statement's collection, whose fields complete without a prefix. */
  readonly completionFields?: Readonly<Record<string, readonly string[]>>;
  readonly completionCollection?: string;
  readonly errorAt?: EditorErrorMark;
  readonly lineNumbers?: boolean;
  readonly autoFocus?: boolean;
  readonly readOnly?: boolean;
  readonly className?: string;
}

const setError = StateEffect.define<EditorErrorMark | undefined>();

/** The marked error: the word at the position underlined, its line tinted. Cleared by any edit. */
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    let next = transaction.docChanged ? Decoration.none : marks.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(setError)) continue;
      next = Decoration.none;
      const at = effect.value;
      const doc = transaction.state.doc;
      if (at === undefined || at.line < 1 || at.line > doc.lines) continue;
      const line = doc.line(at.line);
      const from = Math.min(line.to, line.from + Math.max(0, at.column - 1));
      const word = /^[\w$:`'".]+|^\S/.exec(doc.sliceString(from, Math.min(line.to, from + 200)));
      const to = Math.min(line.to, from + (word?.[0].length ?? 0));
      const ranges = [Decoration.line({ class: 'cm-error-line' }).range(line.from)];
      if (to > from) ranges.push(Decoration.mark({ class: 'cm-error-mark' }).range(from, to));
      next = Decoration.set(ranges, true);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/**
 * Typing over a selection that spans several highlighted tokens: left to the browser, Chromium
 * keeps the first token's look by wrapping the new text in a `<span style="…">`, which the CSP
 * refuses (a console error on every such keystroke). The editor makes that edit itself instead,
 * through the same input handlers (bracket closing) the browser path would reach.
 */
const typeOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const range = view.state.selection.main;
    if (event.inputType !== 'insertText' || event.data === null || range.empty || view.composing || view.state.selection.ranges.length > 1) return false;
    const text = event.data;
    const insert = () => view.state.update(view.state.replaceSelection(text), { userEvent: 'input.type', scrollIntoView: true });
    event.preventDefault();
    if (!view.state.facet(EditorView.inputHandler).some((handler) => handler(view, range.from, range.to, text, insert))) view.dispatch(insert());
    return true;
  },
});

/**
 * A completion whose answer arrives after the editor lost focus would stay open over the next
 * field (typing fast, then clicking elsewhere): it is closed once the editor is not focused.
 */
const noCompletionWithoutFocus = EditorView.updateListener.of((update) => {
  if (update.view.hasFocus || completionStatus(update.state) === null) return;
  setTimeout(() => {
    if (!update.view.hasFocus) closeCompletion(update.view);
  }, 0);
});

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const latest = useRef(props);
  latest.current = props;
  const languageSlot = useRef(new Compartment());
  const readOnlySlot = useRef(new Compartment());

  // The editor is made once; later props reach it through `latest` and the effects below.
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const shadow = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    const commands = Prec.highest(
      keymap.of([
        { key: 'Mod-Enter', run: () => (latest.current.onRun === undefined ? false : (latest.current.onRun(), true)) },
        { key: 'Mod-ArrowUp', run: () => (latest.current.onHistory === undefined ? false : (latest.current.onHistory(-1), true)) },
        { key: 'Mod-ArrowDown', run: () => (latest.current.onHistory === undefined ? false : (latest.current.onHistory(1), true)) },
      ]),
    );
    const extensions: Extension[] = [
      commands,
      typeOverSelection,
      noCompletionWithoutFocus,
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      highlightActiveLine(),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
      EditorView.lineWrapping,
      inspectorEditorTheme,
      errorField,
      languageSlot.current.of(languageOf(props)),
      readOnlySlot.current.of(EditorState.readOnly.of(props.readOnly === true)),
      EditorView.contentAttributes.of({ 'aria-label': props.ariaLabel, 'aria-multiline': 'true' }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) latest.current.onChange(update.state.doc.toString());
      }),
    ];
    if (props.lineNumbers === true) extensions.push(lineNumbers(), highlightActiveLineGutter());
    if (props.placeholder !== undefined) extensions.push(placeholderText(props.placeholder));
    const editor = new EditorView({ state: EditorState.create({ doc: props.value, extensions }), parent: shadow, root: shadow });
    view.current = editor;
    if (props.autoFocus === true) editor.focus();
    return () => {
      editor.destroy();
      view.current = undefined;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- made once, on purpose (above)
  }, []);

  // A value set from outside (history, a UI action) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor === undefined) return;
    const current = editor.state.doc.toString();
    if (current !== props.value) {
      editor.dispatch({ changes: { from: 0, to: current.length, insert: props.value }, selection: { anchor: props.value.length } });
    }
  }, [props.value]);

  const completionKey = JSON.stringify([props.completions ?? [], props.completionFields ?? {}, props.completionCollection ?? null]);
  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(languageOf(props)) });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- completionKey stands for props.completions, compared by content
  }, [props.language, completionKey]);

  useEffect(() => {
    view.current?.dispatch({ effects: readOnlySlot.current.reconfigure(EditorState.readOnly.of(props.readOnly === true)) });
  }, [props.readOnly]);

  const errorLine = props.errorAt?.line;
  const errorColumn = props.errorAt?.column;
  useEffect(() => {
    view.current?.dispatch({
      effects: setError.of(errorLine === undefined || errorColumn === undefined ? undefined : { line: errorLine, column: errorColumn }),
    });
  }, [errorLine, errorColumn]);

  return <div ref={host} className={`code-editor${props.className === undefined ? '' : ` ${props.className}`}`} />;
}

function languageOf(props: CodeEditorProps): Extension {
  return props.language === 'dql' ? dqlLanguage(props.completions ?? [], props.completionFields, props.completionCollection) : json();
}
