/**
 * BFCL's MessageAPI, ported to TypeScript from ShishirPatil/gorilla
 * (`berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/message_api.py`
 * at commit 6ea5797, Apache-2.0: see data/LICENSE). Each method takes the call's keyword arguments and
 * returns what the Python method returns; errors are returned as `{ error }` values, as in BFCL, and
 * where the Python raises (a message stored as a list has no `.lower()`), the method throws.
 *
 * Kept as in the original: message ids come from Python's generator with the scenario's seed
 * (python-random.ts), so they are BFCL's; `delete_message` finds the latest message to the receiver but
 * removes the first message equal to it (Python's `list.remove`). `generated_ids` is a set in Python:
 * here an array kept sorted, so equal sets give equal arrays.
 */
import { PythonRandom } from './python-random.js';

type Args = Record<string, unknown>;
/** One message: `{ receiver_id: content }` (content is a string, or in some scenarios a list of strings). */
type Message = Record<string, unknown>;

/** The public state, compared by the check (the attribute names of the Python class). */
export interface MessageState {
  generated_ids: number[];
  user_count: number;
  user_map: Record<string, string>;
  inbox: Message[];
  message_count: number;
  current_user: string | null;
}

const DEFAULT_STATE: MessageState = {
  generated_ids: [],
  user_count: 4,
  user_map: { Alice: 'USR001', Bob: 'USR002', Catherine: 'USR003', Daniel: 'USR004' },
  inbox: [
    { USR002: 'My name is Alice. I want to connect.' },
    { USR003: 'Could you upload the file?' },
    { USR004: 'Could you upload the file?' },
  ],
  message_count: 3,
  current_user: null,
};

const NOT_LOGGED_IN = { error: 'No user is currently logged in.' };

/** A message's receiver and content (Python: `list(message.items())[0]`). */
const firstEntry = (message: Message): [string, unknown] => Object.entries(message)[0] ?? ['', ''];

export class MessageApi {
  state: MessageState;
  private readonly random: PythonRandom;

  /** `_load_scenario`: the task's initial configuration over the defaults. */
  constructor(scenario: Args = {}) {
    const pick = <K extends keyof MessageState>(key: K): MessageState[K] =>
      structuredClone(Object.hasOwn(scenario, key) ? (scenario[key] as MessageState[K]) : DEFAULT_STATE[key]);
    this.random = new PythonRandom(Object.hasOwn(scenario, 'random_seed') ? (scenario.random_seed as number) : 200191);
    this.state = {
      generated_ids: [...pick('generated_ids')].sort((a, b) => a - b),
      user_count: pick('user_count'),
      user_map: pick('user_map'),
      inbox: pick('inbox'),
      message_count: pick('message_count'),
      current_user: pick('current_user'),
    };
  }

  private generateId(): { new_id: number } {
    let id = this.random.randint(10000, 99999);
    while (this.state.generated_ids.includes(id)) id = this.random.randint(10000, 99999);
    this.state.generated_ids.push(id);
    this.state.generated_ids.sort((a, b) => a - b);
    return { new_id: id };
  }

  list_users() {
    return { user_list: Object.keys(this.state.user_map) };
  }

  get_user_id({ user }: Args) {
    const name = String(user);
    if (!Object.hasOwn(this.state.user_map, name)) return { error: `User '${name}' not found in the workspace.` };
    return { user_id: this.state.user_map[name] };
  }

  message_login({ user_id }: Args) {
    if (!Object.values(this.state.user_map).includes(user_id as string))
      return { login_status: false, message: `User ID '${String(user_id)}' not found.` };
    this.state.current_user = user_id as string;
    return { login_status: true, message: `User '${String(user_id)}' logged in successfully.` };
  }

  message_get_login_status() {
    return { login_status: Boolean(this.state.current_user) };
  }

  send_message({ receiver_id, message }: Args) {
    if (!this.state.current_user) return NOT_LOGGED_IN;
    if (!Object.values(this.state.user_map).includes(receiver_id as string))
      return { error: `Receiver ID '${String(receiver_id)}' not found.` };
    const messageId = this.generateId();
    this.state.inbox.push({ [receiver_id as string]: message });
    this.state.message_count += 1;
    return { sent_status: true, message_id: messageId, message: `Message sent to '${String(receiver_id)}' successfully.` };
  }

  delete_message({ receiver_id }: Args) {
    if (!this.state.current_user) return NOT_LOGGED_IN;
    const latest = [...this.state.inbox].reverse().find((message) => firstEntry(message)[0] === receiver_id);
    if (!latest) return { error: `Receiver ID ${String(receiver_id)} not found.` };
    const text = JSON.stringify(latest);
    this.state.inbox.splice(
      this.state.inbox.findIndex((message) => JSON.stringify(message) === text),
      1,
    );
    return {
      deleted_status: true,
      receiver_id: firstEntry(latest)[0],
      message: `Receiver ${String(receiver_id)}'s latest message deleted successfully.`,
    };
  }

  view_messages_sent() {
    if (!this.state.current_user) return NOT_LOGGED_IN;
    const sent: Record<string, unknown[]> = {};
    for (const message of this.state.inbox) {
      const [receiver, content] = firstEntry(message);
      (sent[receiver] ??= []).push(content);
    }
    return { messages: sent };
  }

  add_contact({ user_name }: Args) {
    const name = String(user_name);
    if (Object.hasOwn(this.state.user_map, name)) return { error: `User name '${name}' already exists.` };
    this.state.user_count += 1;
    const userId = `USR${String(this.state.user_count).padStart(3, '0')}`;
    if (Object.values(this.state.user_map).includes(userId)) return { error: `User ID '${userId}' already exists.` };
    this.state.user_map[name] = userId;
    return { added_status: true, user_id: userId, message: `Contact '${name}' added successfully.` };
  }

  search_messages({ keyword }: Args) {
    if (!this.state.current_user) return NOT_LOGGED_IN;
    const wanted = String(keyword).toLowerCase();
    const results: { receiver_id: string; message: unknown }[] = [];
    for (const message of this.state.inbox) {
      const [receiver, content] = firstEntry(message);
      if (typeof content !== 'string')
        throw new Error(`'${Array.isArray(content) ? 'list' : typeof content}' object has no attribute 'lower'`);
      if (content.toLowerCase().includes(wanted)) results.push({ receiver_id: receiver, message: content });
    }
    return { results };
  }

  get_message_stats() {
    if (!this.state.current_user) return NOT_LOGGED_IN;
    const contacts = new Set(this.state.inbox.map((message) => firstEntry(message)[0]));
    return { stats: { received_count: this.state.inbox.length, total_contacts: contacts.size } };
  }
}
