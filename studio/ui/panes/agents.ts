import { api } from '../api.js';
import { h, replace, toast } from '../dom.js';
import type { AgentListView, AgentToolsSavedView, AgentToolsView } from '../types.js';
import { newTool, type EditedTool } from './agents/edited-tool.js';
import { editTool } from './agents/tool-editor.js';

/** The agent being edited: its tools (changed in place), the one open, and whether they are saved. */
interface EditingState {
  agentIndex?: number;
  tools: EditedTool[];
  current: number;
  dirty: boolean;
}

/** Seed 000's tool editor for the Tools-mode agent directories of the config. */
export function agentsPane(root: HTMLElement, route: string[]): () => void {
  const view = agentsLayout(root);
  const { agentList, toolList, editorPanel, addTool, save, saveState } = view;
  const state: EditingState = { tools: [], current: -1, dirty: false };

  function markDirty(value: boolean): void {
    state.dirty = value;
    save.disabled = !value;
    saveState.textContent = value ? 'Unsaved changes' : '';
  }

  async function loadAgents(): Promise<void> {
    const { agents } = await api<AgentListView>('GET', '/api/agents');
    if (agents.length === 0) {
      replace(agentList, h('li', { class: 'muted' }, 'The config lists no agent directories ("agents" in agent-spaces.config).'));
      return;
    }
    replace(agentList, ...agentButtons(agents, (index) => void openAgent(index)));
    await openAgent(Number(route[0] ?? agents[0]?.index ?? 0));
  }

  async function openAgent(index: number): Promise<void> {
    const agent = await api<AgentToolsView>('GET', `/api/agents/${index}`);
    state.agentIndex = index;
    state.tools = agent.tools as EditedTool[];
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
    else openTool(Math.min(Math.max(Number(route[1] ?? 0), 0), state.tools.length - 1));
  }

  function renderTools(): void {
    replace(toolList, ...toolButtons(state.tools, state.current, openTool));
  }

  function openTool(index: number): void {
    state.current = index;
    renderTools();
    const tool = state.tools[index];
    if (!tool || state.agentIndex === undefined) {
      replace(editorPanel, h('p', { class: 'muted' }, 'This agent has no tools yet: Add tool.'));
      return;
    }
    editTool(editorPanel, tool, index, state.agentIndex, {
      changed: () => markDirty(true),
      renamed: renderTools,
      removed: () => {
        state.tools.splice(index, 1);
        markDirty(true);
        openTool(Math.min(index, state.tools.length - 1));
      },
    });
  }

  addTool.addEventListener('click', () => {
    state.tools.push(newTool(state.tools));
    markDirty(true);
    openTool(state.tools.length - 1);
  });
  save.addEventListener('click', () => void saveTools(state, view, markDirty));

  const warnUnsaved = (event: BeforeUnloadEvent): void => {
    if (state.dirty) event.preventDefault();
  };
  window.addEventListener('beforeunload', warnUnsaved);
  void loadAgents().catch((error: Error) => replace(editorPanel, h('p', { class: 'error' }, error.message)));
  return () => window.removeEventListener('beforeunload', warnUnsaved);
}

type AgentsLayout = ReturnType<typeof agentsLayout>;

/** The pane's frame: agent directories and their tools on the side (with Add tool and Save), the editor beside. */
function agentsLayout(root: HTMLElement) {
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
  return { agentList, toolList, editorPanel, addTool, save, saveState };
}

/** One button per agent directory: its name, and its mode and tool count (or that it does not load). */
function agentButtons(agents: AgentListView['agents'], open: (index: number) => void): HTMLElement[] {
  return agents.map((agent) =>
    h(
      'li',
      {},
      h(
        'button',
        { type: 'button', 'data-agent': agent.index, onclick: () => open(agent.index) },
        agent.name,
        ' ',
        h('span', { class: agent.error ? 'error' : 'muted' }, agent.error ? '(invalid)' : `(${agent.mode}, ${agent.tools ?? 0} tools)`),
      ),
    ),
  );
}

/** One button per tool of the open agent, the open one marked current. */
function toolButtons(tools: EditedTool[], current: number, open: (index: number) => void): HTMLElement[] {
  return tools.map((tool, index) =>
    h(
      'li',
      {},
      h(
        'button',
        { type: 'button', 'data-tool': index, 'aria-current': String(index === current), onclick: () => open(index) },
        tool.name || '(unnamed)',
      ),
    ),
  );
}

/** Writes the open agent's tools to its tsagent.json; the status line says saved, or why not. */
async function saveTools(state: EditingState, view: AgentsLayout, markDirty: (value: boolean) => void): Promise<void> {
  const { save, saveState } = view;
  if (state.agentIndex === undefined) return;
  save.disabled = true;
  try {
    const answer = await api<AgentToolsSavedView>('PUT', `/api/agents/${state.agentIndex}/tools`, { tools: state.tools });
    markDirty(false);
    saveState.textContent = 'Saved';
    toast(answer.note);
  } catch (error) {
    save.disabled = false;
    saveState.textContent = (error as Error).message;
    saveState.className = 'error';
  }
}
