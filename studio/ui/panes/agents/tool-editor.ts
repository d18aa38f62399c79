import type { EditorView } from '@codemirror/view';
import { api } from '../../api.js';
import { createCodeEditor } from '../../code-editor.js';
import { debounce, h, labelled, replace } from '../../dom.js';
import { parametersBuilder } from '../../parameters-builder.js';
import { schemaForm, type SchemaField } from '../../schema-form.js';
import { templateHighlight } from '../../template-highlight.js';
import type { JsonSchema, ToolCheckView } from '../../types.js';
import { sampleValues, type EditedTool } from './edited-tool.js';
import { testTool } from './tool-test.js';

/** What the editor tells the pane that holds the tool list. */
export interface ToolEditorHooks {
  /** Something of the tool changed: the list is no longer saved. */
  changed(): void;
  /** The tool's name changed: the list shows it. */
  renamed(): void;
  /** Delete tool was clicked. */
  removed(): void;
}

/**
 * Edits one tool in place, in `panel`: name, description, parameters, prompt template (its placeholders
 * coloured by the server's check), the loader's errors and warnings, a preview with sample values, Test.
 */
export function editTool(panel: HTMLElement, tool: EditedTool, position: number, agent: number, hooks: ToolEditorHooks): void {
  const report = checkReport();
  const sampleHost = h('div', {});
  const testOutput = h('div', { 'aria-live': 'polite' });
  const templateHost = h('div', { class: 'editor small' });
  const nameInput = h('input', { type: 'text', value: tool.name, name: 'tool-name' });
  const descriptionInput = h('textarea', { rows: 2, name: 'tool-description' }, tool.description);
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete tool');
  const test = h('button', { type: 'button' }, 'Test tool');
  let unknownKeys = new Set<string>();
  let sample: SchemaField | undefined;

  const samples = (): Record<string, unknown> => sampleValues(tool, sample?.value());
  const check = debounce(async () => {
    const answer = await api<ToolCheckView>('POST', `/api/agents/${agent}/check`, { position, tool, sample: samples() });
    unknownKeys = new Set(answer.unknownPlaceholders);
    template.dispatch({}); // re-colour the placeholders with the server's verdict
    report.show(answer);
  }, 120);
  const changed = (): void => {
    hooks.changed();
    check();
  };
  const renderSampleForm = (): void => {
    sample = schemaForm(tool.parameters as JsonSchema, check);
    replace(sampleHost, sample.element);
  };

  nameInput.addEventListener('input', () => {
    tool.name = nameInput.value;
    hooks.renamed();
    changed();
  });
  descriptionInput.addEventListener('input', () => {
    tool.description = descriptionInput.value;
    changed();
  });
  remove.addEventListener('click', () => hooks.removed());
  test.addEventListener('click', () => void testTool(testOutput, agent, tool, samples()));

  replace(
    panel,
    h('h3', {}, 'Tool'),
    h(
      'div',
      { class: 'split' },
      labelled('Name', nameInput, 'letters, digits, _ - . (the MCP tool name)'),
      labelled('Description', descriptionInput),
    ),
    parametersBuilder(tool.parameters, () => {
      renderSampleForm();
      changed();
    }),
    h('h3', {}, 'Prompt template'),
    h(
      'p',
      { class: 'hint' },
      "{param} is replaced by the argument; {name} and {tool.name} by the tool's name; {{ and }} are literal braces.",
    ),
    templateHost,
    h(
      'div',
      { class: 'split' },
      h('div', {}, h('h4', {}, 'Errors'), report.errors),
      h('div', {}, h('h4', {}, 'Warnings'), report.warnings),
    ),
    h(
      'div',
      { class: 'split' },
      h('div', {}, h('h4', {}, 'Sample values'), sampleHost),
      h('div', {}, h('h4', {}, 'Preview'), report.preview),
    ),
    h('div', { class: 'row' }, test, remove),
    testOutput,
  );
  const template: EditorView = createCodeEditor(templateHost, {
    doc: tool.prompt,
    label: 'Prompt template',
    extensions: [templateHighlight(() => unknownKeys)],
    onChange: (text) => {
      tool.prompt = text;
      changed();
    },
  });
  renderSampleForm();
  check();
}

/** The loader's verdict on the edited tool: its errors, its warnings, and the prompt filled with the sample values. */
function checkReport(): { errors: HTMLElement; warnings: HTMLElement; preview: HTMLElement; show(answer: ToolCheckView): void } {
  const errors = h('ul', { class: 'issues', 'aria-label': 'Errors', 'aria-live': 'polite' });
  const warnings = h('ul', { class: 'issues', 'aria-label': 'Warnings', 'aria-live': 'polite' });
  const preview = h('pre', { class: 'preview', 'aria-label': 'Preview', 'aria-live': 'polite', tabindex: 0 });
  const show = (answer: ToolCheckView): void => {
    errors.dataset.count = String(answer.errors.length);
    replace(
      errors,
      ...(answer.errors.length
        ? answer.errors.map((error) => h('li', { class: 'error' }, h('code', {}, error.path), ` ${error.message}`))
        : [h('li', { class: 'ok' }, 'No errors.')]),
    );
    replace(
      warnings,
      ...(answer.warnings.length
        ? answer.warnings.map((warning) => h('li', { class: 'warn' }, warning))
        : [h('li', { class: 'muted' }, 'No warnings.')]),
    );
    preview.textContent = answer.preview;
  };
  return { errors, warnings, preview, show };
}
