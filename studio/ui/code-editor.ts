import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { linter, lintGutter, type Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';

export interface CodeEditorOptions {
  doc: string;
  label: string;
  typescript?: boolean;
  /** Diagnostics as the text changes (after a pause in typing). */
  lint?: (text: string) => Promise<LintDiagnostic[]>;
  onChange?: (text: string) => void;
  extensions?: Extension[];
}

/** Colours from the page's variables, so the editor follows light and dark like the rest. */
const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--bg)', color: 'var(--fg)' },
  '.cm-gutters': { backgroundColor: 'var(--bg-alt)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--mark) 50%, transparent)' },
  '.cm-content': { fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, monospace", fontSize: '13px', caretColor: 'var(--fg)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
});

/** A CodeMirror 6 editor (Tab moves focus on, as everywhere else on the page; no key is trapped). */
export function createCodeEditor(parent: HTMLElement, options: CodeEditorOptions): EditorView {
  const extensions: Extension[] = [
    lineNumbers(),
    history(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    // Token classes (tok-*) coloured by styles.css, so light and dark each get readable colours.
    syntaxHighlighting(classHighlighter),
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap]),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': options.label }),
    theme,
    ...(options.typescript ? [javascript({ typescript: true })] : []),
    ...(options.lint
      ? [lintGutter(), linter((view) => options.lint?.(view.state.doc.toString()) ?? Promise.resolve([]), { delay: 350 })]
      : []),
    ...(options.onChange
      ? [EditorView.updateListener.of((update) => update.docChanged && options.onChange?.(update.state.doc.toString()))]
      : []),
    ...(options.extensions ?? []),
  ];
  return new EditorView({ parent, state: EditorState.create({ doc: options.doc, extensions }) });
}

/** A (line, column) of the type-checker (1-based) as a range of the document: to the end of the word there. */
export function rangeAt(state: EditorState, line: number, column: number): { from: number; to: number } {
  const at = state.doc.line(Math.min(Math.max(line, 1), state.doc.lines));
  const from = Math.min(at.from + Math.max(column - 1, 0), at.to);
  const word = /^[\w$]+/.exec(state.doc.sliceString(from, at.to));
  return { from, to: Math.min(from + (word?.[0].length ?? 1), at.to) };
}
