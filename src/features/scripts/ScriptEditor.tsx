import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { setDiagnostics } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import CodeMirror, { type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { useEffect, useImperativeHandle, useMemo, useRef, type Ref } from 'react';
import type { InstanceType } from '../../../contracts/instanceValues';
import { markRange, type ErrorMark } from './editorMarks';

/** What the page asks of the editor beyond its value: put the cursor on a line. */
export interface ScriptEditorHandle {
  goTo: (mark: ErrorMark) => void;
}

export interface ScriptEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** SQL (PostgreSQL dialect) for pg; etcd scripts are plain lines. */
  engine: InstanceType;
  /** The tables and columns completion offers beside the keywords (pg; see completionSchema). */
  completion: SQLNamespace;
  /** The failed statements of the run on show, underlined with their message. */
  marks: readonly ErrorMark[];
  label: string;
  ref?: Ref<ScriptEditorHandle>;
}

// Colours from the theme's own variables, so the editor reads as the rest of the page in every
// theme: the accent and muted text are legible on the page background by construction.
const look = EditorView.theme({
  '&': { color: 'var(--w-fg)', backgroundColor: 'var(--w-bg)', fontSize: '0.875rem' },
  '.cm-content': { caretColor: 'var(--w-fg)', fontFamily: 'var(--chakra-fonts-mono)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--w-fg)' },
  '&.cm-focused': { outline: '2px solid var(--w-primary-text)', outlineOffset: '1px' },
  '.cm-gutters': { backgroundColor: 'var(--w-bg-subtle)', color: 'var(--w-muted)', borderRight: '1px solid var(--w-border-muted)' },
  '.cm-activeLine': { backgroundColor: 'var(--w-bg-subtle)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--w-bg-muted)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': {
    backgroundColor: 'var(--w-primary-muted)',
  },
  '.cm-tooltip': { backgroundColor: 'var(--w-surface)', color: 'var(--w-fg)', border: '1px solid var(--w-border)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--w-primary-muted)', color: 'var(--w-fg)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--w-danger)' },
  '.cm-lintRange-error': { backgroundColor: 'var(--w-danger-subtle)' },
});

const highlight = syntaxHighlighting(
  HighlightStyle.define([
    { tag: [tags.keyword, tags.operatorKeyword, tags.typeName], color: 'var(--w-primary-text)', fontWeight: '600' },
    { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--w-muted)', fontStyle: 'italic' },
    { tag: [tags.string, tags.special(tags.string)], color: 'var(--w-fg)', textDecoration: 'underline dotted' },
  ]),
);

/**
 * The script editor, CodeMirror 6: SQL highlighting and completion for pg, plain lines for etcd,
 * the failed statements underlined. Loaded lazily: CodeMirror stays out of every other screen's code.
 * Tab moves focus on (no keyboard trap); saving and running are the page's keys.
 */
export default function ScriptEditor({ value, onChange, engine, completion, marks, label, ref }: ScriptEditorProps) {
  const editor = useRef<ReactCodeMirrorRef>(null);
  const extensions = useMemo(
    () => [
      look,
      highlight,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      ...(engine === 'pg' ? [sql({ dialect: PostgreSQL, schema: completion, defaultSchema: 'public' })] : []),
    ],
    [engine, completion, label],
  );

  useEffect(() => {
    const view = editor.current?.view;
    if (!view) return;
    const diagnostics = marks.flatMap((mark) => {
      const range = markRange(view.state.doc, mark);
      return range ? [{ ...range, severity: 'error' as const, message: mark.message }] : [];
    });
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }, [marks]);

  useImperativeHandle(ref, () => ({
    goTo(mark) {
      const view = editor.current?.view;
      const range = view && markRange(view.state.doc, mark);
      if (!view || !range) return;
      view.dispatch({ selection: { anchor: range.from }, scrollIntoView: true });
      view.focus();
    },
  }));

  return (
    <CodeMirror
      ref={editor}
      value={value}
      onChange={onChange}
      extensions={extensions}
      theme="none"
      basicSetup={{ foldGutter: false, highlightActiveLine: true }}
      indentWithTab={false}
      minHeight="16rem"
      maxHeight="60vh"
    />
  );
}
