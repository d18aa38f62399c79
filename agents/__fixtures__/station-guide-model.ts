import { callReply, type ChatRequestBody, type ScriptedReply } from '../../test/support/scripted-model-server.js';

/**
 * The scripted model behind the station-guide fixture: "about X station" → look X up with the agent's
 * own MCP tool, then finish with whether it is step-free; "Give facts about X" → finish with JSON;
 * Atlantis → an HTTP 400 from the model.
 */
export function stationGuideModel(request: ChatRequestBody): ScriptedReply {
  const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
  // The task itself, without the context (earlier messages of a session) the planner sends after it.
  const task = text(request.messages.find((m) => m.role === 'user')?.content).split('\n\nContext:\n')[0] ?? '';
  const station = /about (\w+) station/.exec(task)?.[1] ?? /facts about (\w+)/.exec(task)?.[1] ?? 'Unknown';
  if (station === 'Atlantis') return { status: 400, body: { error: { message: 'the model cannot find Atlantis' } } };
  if (/Give facts about/.test(task)) return callReply('finish', { summary: JSON.stringify({ station, accessible: station !== 'Museum' }) });
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return callReply('finish', { summary: `${station}: ${/"accessible":\s*true/.test(text(last.content)) ? 'step-free' : 'not step-free'}` });
  return callReply('call_tool', { name: 'mcp-stations.stationInfo', arguments: { name: station } });
}

