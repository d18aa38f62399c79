import type { EditorView } from '@codemirror/view';
import { api, ApiError } from '../api.js';
import { createCodeEditor } from '../code-editor.js';
import { debounce, h, jsonBlock, labelled, replace, toast } from '../dom.js';
import { parametersBuilder, type ObjectParameters } from '../parameters-builder.js';
import { schemaForm, type SchemaField } from '../schema-form.js';
import { templateHighlight } from '../template-highlight.js';
import type { AgentListView, JsonSchema, ToolCheckView } from '../types.js';

type Tool = Record<string, unknown> & { name: string; description: string; parameters: ObjectParameters; prompt: string };

/** Seed 000's tool editor for the Tools-mode agent directories of the config. */
export function agentsPane(root: HTMLElement, route: string[]): () => void {
  const agentList = h('ul', { class: 'list', 'aria-label': 'Agents' });
  const toolList = h('ul', { class: 'list', 'aria-label': 'Tools' });
  const editorPanel = h(
    'section',
    { class: 'panel', 'aria-label': 'Tool editor' },
    h('p', { class: 'muted' }, 'Choose an agent and a tool.'),
  );
  const addTool = h('button', { type: 'button', disabled: true }, 'Add tool');
  const save = h('button', { type: 'button', class: 'primary', disabled: true }, 'Save');
  const saveState = h('span', { class: 'muted', role: 'status' });
  let agentIndex: number | undefined;
  let tools: Tool[] = [];
  let current = -1;
  let dirty = false;

  replace(
    root,
    h('h2', {}, 'Agents — tool editor'),
    h(
      'div',
      { class: 'columns' },
      h(
        'aside',
        { class: 'panel' },
        h('h3', {}, 'Agent directories'),
        agentList,
        h('h3', {}, 'Tools'),
        toolList,
        h('div', { class: 'row' }, addTool, save),
        saveState,
      ),
      editorPanel,
    ),
  );

  function markDirty(value: boolean): void {
    dirty = value;
    save.disabled = !value;
    saveState.textContent = value ? 'Unsaved changes' : '';
  }

  async function loadAgents(): Promise<void> {
    const { agents } = await api<AgentListView>('GET', '/api/agents');
    if (agents.length === 0) {
      replace(agentList, h('li', { class: 'muted' }, 'The config lists no agent directories ("agents" in agent-spaces.config).'));
      return;
    }
    replace(
      agentList,
      ...agents.map((agent) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', 'data-agent': agent.index, onclick: () => void openAgent(agent.index) },
            agent.name,
            ' ',
            h('span', { class: agent.error ? 'error' : 'muted' }, agent.error ? '(invalid)' : `(${agent.mode}, ${agent.tools ?? 0} tools)`),
          ),
        ),
      ),
    );
    await openAgent(Number(route[0] ?? agents[0]?.index ?? 0));
  }

  async function openAgent(index: number): Promise<void> {
    const agent = await api<{ name: string; dir: string; tools: Tool[]; mode: string }>('GET', `/api/agents/${index}`);
    agentIndex = index;
    tools = agent.tools;
    for (const button of agentList.querySelectorAll('button'))
      button.setAttribute('aria-current', String(button.dataset.agent === String(index)));
    addTool.disabled = false;
    markDirty(false);
    renderTools();
    if (agent.mode !== 'tools')
      replace(
        editorPanel,
        h(
          'p',
          { class: 'warn' },
          `${agent.name} is not a Tools-mode agent (its tsagent.json has no metadata.tools); adding a tool makes it one.`,
        ),
      );
    else openTool(Math.min(Math.max(Number(route[1] ?? 0), 0), tools.length - 1));
  }

  function renderTools(): void {
    replace(
      toolList,
      ...tools.map((tool, index) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', 'data-tool': index, 'aria-current': String(index === current), onclick: () => openTool(index) },
            tool.name || '(unnamed)',
          ),
        ),
      ),
    );
  }

  addTool.addEventListener('click', () => {
    let index = tools.length + 1;
    while (tools.some((tool) => tool.name === `new_tool_${index}`)) index++;
    tools.push({
      name: `new_tool_${index}`,
      description: 'What this tool does',
      parameters: { type: 'object', properties: {} },
      prompt: 'Do the task for {tool.name}.',
    });
    markDirty(true);
    openTool(tools.length - 1);
  });

  save.addEventListener('click', async () => {
    if (agentIndex === undefined) return;
    save.disabled = true;
    try {
      const answer = await api<{ note: string }>('PUT', `/api/agents/${agentIndex}/tools`, { tools });
      markDirty(false);
      saveState.textContent = 'Saved';
      toast(answer.note);
    } catch (error) {
      save.disabled = false;
      saveState.textContent = (error as Error).message;
      saveState.className = 'error';
    }
  });

  function openTool(index: number): void {
    current = index;
    renderTools();
    const tool = tools[index];
    if (!tool || agentIndex === undefined) {
      replace(editorPanel, h('p', { class: 'muted' }, 'This agent has no tools yet: Add tool.'));
      return;
    }
    editTool(tool, index, agentIndex);
  }

  function editTool(tool: Tool, position: number, agent: number): void {
    const errors = h('ul', { class: 'issues', 'aria-label': 'Errors', 'aria-live': 'polite' });
    const warnings = h('ul', { class: 'issues', 'aria-label': 'Warnings', 'aria-live': 'polite' });
    const preview = h('pre', { class: 'preview', 'aria-label': 'Preview', 'aria-live': 'polite', tabindex: 0 });
    const sampleHost = h('div', {});
    const testOutput = h('div', { 'aria-live': 'polite' });
    const templateHost = h('div', { class: 'editor small' });
    let unknownKeys = new Set<string>();
    let sample: SchemaField | undefined;

    const nameInput = h('input', { type: 'text', value: tool.name, name: 'tool-name' });
    const descriptionInput = h('textarea', { rows: 2, name: 'tool-description' }, tool.description);
    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete tool');
    const test = h('button', { type: 'button' }, 'Test tool');

    const check = debounce(async () => {
      const answer = await api<ToolCheckView>('POST', `/api/agents/${agent}/check`, { position, tool, sample: sampleValues() });
      unknownKeys = new Set(answer.unknownPlaceholders);
      template.dispatch({}); // re-colour the placeholders with the server's verdict
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
    }, 120);

    const changed = (): void => {
      markDirty(true);
      check();
    };

    function sampleValues(): Record<string, unknown> {
      const values = (sample?.value() as Record<string, unknown> | undefined) ?? {};
      // Parameters left empty take their first example, so the preview reads like a real call.
      for (const [key, schema] of Object.entries(tool.parameters.properties ?? {})) {
        if (values[key] === undefined && Array.isArray(schema.examples) && schema.examples.length > 0) values[key] = schema.examples[0];
      }
      return values;
    }

    function renderSampleForm(): void {
      sample = schemaForm(tool.parameters as JsonSchema, check);
      replace(sampleHost, sample.element);
    }

    nameInput.addEventListener('input', () => {
      tool.name = nameInput.value;
      renderTools();
      changed();
    });
    descriptionInput.addEventListener('input', () => {
      tool.description = descriptionInput.value;
      changed();
    });
    remove.addEventListener('click', () => {
      tools.splice(position, 1);
      markDirty(true);
      openTool(Math.min(position, tools.length - 1));
    });
    test.addEventListener('click', async () => {
      replace(testOutput, h('p', { class: 'muted' }, 'Running a session of the agent…'));
      try {
        const answer = await api<{ prompt: string; answer?: string; error?: string; events: Record<string, unknown>[] }>(
          'POST',
          `/api/agents/${agent}/test`,
          { tool, arguments: sampleValues() },
        );
        replace(
          testOutput,
          h('h4', {}, 'Prompt sent'),
          h('pre', { class: 'preview' }, answer.prompt),
          h('h4', {}, `Tool calls and steps (${answer.events.length})`),
          h('ol', { class: 'issues', 'aria-label': 'Session steps' }, ...answer.events.map((event) => h('li', {}, describeEvent(event)))),
          h('details', {}, h('summary', {}, 'Every event as recorded'), jsonBlock(answer.events, 'Session events')),
          h('h4', {}, answer.error ? 'Error' : 'Answer'),
          h(
            'pre',
            { class: answer.error ? 'error' : 'preview', 'aria-label': answer.error ? 'Session error' : 'Answer' },
            answer.error ?? answer.answer ?? '',
          ),
        );
      } catch (error) {
        replace(
          testOutput,
          h(
            'p',
            { class: error instanceof ApiError && error.code === 'STUDIO_NO_MODEL' ? 'warn' : 'error', role: 'alert' },
            (error as Error).message,
          ),
        );
      }
    });

    replace(
      editorPanel,
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
      h('div', { class: 'split' }, h('div', {}, h('h4', {}, 'Errors'), errors), h('div', {}, h('h4', {}, 'Warnings'), warnings)),
      h('div', { class: 'split' }, h('div', {}, h('h4', {}, 'Sample values'), sampleHost), h('div', {}, h('h4', {}, 'Preview'), preview)),
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

  const warnUnsaved = (event: BeforeUnloadEvent): void => {
    if (dirty) event.preventDefault();
  };
  window.addEventListener('beforeunload', warnUnsaved);
  void loadAgents().catch((error: Error) => replace(editorPanel, h('p', { class: 'error' }, error.message)));
  return () => window.removeEventListener('beforeunload', warnUnsaved);
}

/** One line for a session event: what the planner did at that step, and how it went. */
function describeEvent(event: Record<string, unknown>): string {
  const step = typeof event.step === 'number' ? `step ${event.step} · ` : '';
  const outcome =
    event.ok === undefined ? '' : event.ok ? ' ok' : ` failed${isRecord(event.error) ? `: ${String(event.error.message)}` : ''}`;
  switch (event.type) {
    case 'tool-call':
      return `${step}call ${String(event.name)}${outcome}`;
    case 'code-run':
      return `${step}code run, ${String(event.calls)} calls${outcome}`;
    case 'search-run':
      return `${step}search "${String(event.query)}": ${String(event.matches)} matches`;
    case 'task-finish':
      return `${step}finished: ${String(event.summary)}`;
    default:
      return `${step}${String(event.type)}`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
