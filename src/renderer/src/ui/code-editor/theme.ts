/**
 * The editor's look, from the inspector's CSS custom properties (they inherit into the editor's
 * shadow root), so that light and dark follow the shell without reconfiguring the editor.
 */
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorView } from '@codemirror/view';
import type { Extension } from '@codemirror/state';
import { tags as t } from '@lezer/highlight';

const editorTheme = EditorView.theme({
  '&': {
    height: '100%',
    color: 'var(--text)',
    backgroundColor: 'var(--bg)',
    fontSize: 'var(--text-md)',
  },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.6', overflow: 'auto' },
  '.cm-content': { padding: '6px 0', caretColor: 'var(--text)' },
  '.cm-line': { padding: '0 10px' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)', borderLeftWidth: '1.5px' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--selection-strong) !important',
  },
  '.cm-activeLine': { backgroundColor: 'transparent' },
  '&.cm-focused .cm-activeLine': { backgroundColor: 'var(--bg-hover)' },
  '.cm-gutters': {
    backgroundColor: 'var(--bg-subtle)',
    color: 'var(--text-faint)',
    border: 'none',
    borderRight: '1px solid var(--border-subtle)',
    fontFamily: 'var(--font-mono)',
    fontSize: 'var(--text-sm)',
  },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 8px 0 12px', minWidth: '32px' },
  '&.cm-focused .cm-activeLineGutter': { backgroundColor: 'var(--bg-muted)', color: 'var(--text-muted)' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent' },
  '.cm-placeholder': { color: 'var(--text-faint)', fontStyle: 'normal' },
  '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--accent-subtle)', outline: '1px solid var(--border-strong)' },
  '.cm-tooltip': {
    border: '1px solid var(--border)',
    borderRadius: 'var(--radius)',
    backgroundColor: 'var(--bg)',
    color: 'var(--text)',
    boxShadow: 'var(--shadow)',
    fontFamily: 'var(--font-mono)',
    fontSize: 'var(--text-sm)',
    overflow: 'hidden',
  },
  '.cm-tooltip-autocomplete > ul > li': { padding: '2px 10px 2px 8px !important', lineHeight: '1.55' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-fg)' },
  '.cm-completionDetail': { marginLeft: '1em', fontStyle: 'normal', opacity: '0.65' },
  '.cm-completionMatchedText': { textDecoration: 'none', fontWeight: '700' },
  '.cm-error-mark': {
    textDecoration: 'underline wavy var(--danger)',
    textUnderlineOffset: '3px',
    backgroundColor: 'var(--danger-subtle)',
  },
  '.cm-error-line': { backgroundColor: 'color-mix(in srgb, var(--danger) 7%, transparent)' },
});

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.modifier], color: 'var(--syn-keyword)', fontWeight: '600' },
  { tag: t.string, color: 'var(--syn-string)' },
  // lang-sql marks `backtick names` as a special string: they are names in DQL.
  { tag: t.special(t.string), color: 'var(--text)' },
  { tag: [t.number, t.integer, t.float], color: 'var(--syn-number)' },
  { tag: [t.bool, t.null, t.atom], color: 'var(--syn-literal)' },
  // `:name` parameters.
  { tag: t.special(t.name), color: 'var(--syn-param)' },
  { tag: [t.standard(t.name), t.function(t.variableName)], color: 'var(--syn-function)' },
  { tag: [t.propertyName], color: 'var(--syn-property)' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [t.punctuation, t.separator, t.bracket, t.brace, t.squareBracket, t.paren, t.operator], color: 'var(--syn-punct)' },
  { tag: t.name, color: 'var(--text)' },
  { tag: t.invalid, color: 'var(--danger)' },
]);

export const inspectorEditorTheme: Extension = [editorTheme, syntaxHighlighting(highlight)];
