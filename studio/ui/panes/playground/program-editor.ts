import { placeholder } from '@codemirror/view';
import type { EditorView } from '@codemirror/view';
import { api } from '../../api.js';
import { createCodeEditor, rangeAt } from '../../code-editor.js';
import { diagnosticText } from '../../diagnostic-text.js';
import { h, replace } from '../../dom.js';
import type { CheckView, Diagnostic, StarterProgram } from '../../types.js';

/** The program kept per space (one browser may open the studios of several spaces on one address). */
const programKey = (root: string): string => `agent-spaces-studio-program:${root}`;

/**
 * The playground's TypeScript editor: the space's own program (kept in this browser) or the starter made
 * from its capabilities, checked as it is typed by the sandbox's type-checker, its type errors listed.
 */
export class ProgramEditor {
  readonly host = h('div', { class: 'editor' }, h('p', { class: 'muted' }, "Loading this space's program…"));
  readonly problems = h('ul', { class: 'issues', 'aria-label': 'Type errors', 'aria-live': 'polite' });
  readonly starterButton = h(
    'button',
    { type: 'button', hidden: true, title: "Replace the program with the starter program made from this space's capabilities" },
    'Starter program',
  );
  readonly hint = h('p', { class: 'muted', 'aria-label': 'Hint', hidden: true });
  private editor: EditorView | undefined;
  private starter: StarterProgram | undefined;
  private closed = false;

  constructor() {
    this.starterButton.addEventListener('click', () => {
      if (!this.editor || !this.starter) return;
      this.editor.dispatch({ changes: { from: 0, to: this.editor.state.doc.length, insert: this.starter.code } });
      this.showHint(this.starter.hint);
    });
  }

  /** Opens the program kept for the space at `root`, else the starter (with its hint). */
  async open(root: string): Promise<void> {
    const key = programKey(root);
    const saved = localStorage.getItem(key);
    const starter = await api<StarterProgram>('GET', '/api/starter');
    this.starter = starter;
    if (this.closed) return;
    if (saved === null) this.showHint(starter.hint);
    this.starterButton.hidden = starter.code === '';
    this.host.replaceChildren();
    this.editor = createCodeEditor(this.host, {
      doc: saved ?? starter.code,
      label: 'Program (TypeScript)',
      typescript: true,
      extensions: [placeholder(starter.code === '' ? starter.hint : "import { … } from '@capabilities/…';")],
      onChange: (text) => {
        localStorage.setItem(key, text);
        // The starter's hint is about the starter: once the program is the user's own, it goes.
        if (starter.code && text !== starter.code) this.showHint('');
      },
      lint: (text) => this.lint(text),
    });
  }

  /** The program as typed; undefined until the editor is open. */
  text(): string | undefined {
    return this.editor?.state.doc.toString();
  }

  /** Moves the cursor to a line and column of the program (1-based) and focuses the editor. */
  goTo(line: number, column: number): void {
    if (!this.editor) return;
    const { from } = rangeAt(this.editor.state, line, column);
    this.editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    this.editor.focus();
  }

  /** The pane closes: an open still loading leaves the editor unmade. */
  close(): void {
    this.closed = true;
    this.editor?.destroy();
  }

  private async lint(text: string) {
    const { diagnostics } = await api<CheckView>('POST', '/api/check', { code: text });
    this.showProblems(diagnostics);
    return diagnostics.map((diagnostic) => ({
      ...(this.editor ? rangeAt(this.editor.state, diagnostic.line, diagnostic.column) : { from: 0, to: 0 }),
      severity: 'error' as const,
      message: diagnosticText(diagnostic),
      source: 'TypeScript',
    }));
  }

  private showHint(text: string): void {
    this.hint.hidden = text === '';
    this.hint.textContent = text;
  }

  private showProblems(diagnostics: Diagnostic[]): void {
    this.problems.dataset.count = String(diagnostics.length);
    replace(
      this.problems,
      ...(diagnostics.length
        ? diagnostics.map((diagnostic) =>
            h(
              'li',
              { class: 'error' },
              h(
                'button',
                { type: 'button', class: 'link', onclick: () => this.goTo(diagnostic.line, diagnostic.column) },
                `line ${diagnostic.line}:${diagnostic.column}`,
              ),
              ` ${diagnosticText(diagnostic)}`,
            ),
          )
        : [h('li', { class: 'ok' }, 'No type errors.')]),
    );
  }
}
