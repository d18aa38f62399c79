/**
 * The live instances of BFCL's classes for one task (its "world"): built from the task's
 * `initial_config`, called by function name, and compared as BFCL's state check compares them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageApi } from './message.js';
import { Twitter } from './twitter.js';
import { VehicleControl } from './vehicle-control.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** One function of BFCL's function docs (`data/multi_turn_func_doc/*.json`). */
export interface BfclFunctionDoc {
  name: string;
  description: string;
  parameters: { type: 'dict'; properties: Record<string, BfclParameterDoc>; required: string[] };
}

export interface BfclParameterDoc {
  type: string;
  description?: string;
  default?: unknown;
  items?: BfclParameterDoc;
  properties?: Record<string, BfclParameterDoc>;
}

/** The ported classes, by BFCL's class name, with the file of their function docs. */
export const BFCL_CLASSES = {
  VehicleControlAPI: { docs: 'vehicle_control.json', create: (config: Record<string, unknown>) => new VehicleControl(config) },
  TwitterAPI: { docs: 'posting_api.json', create: (config: Record<string, unknown>) => new Twitter(config) },
  MessageAPI: { docs: 'message_api.json', create: (config: Record<string, unknown>) => new MessageApi(config) },
} as const;

export type BfclClass = keyof typeof BFCL_CLASSES;

const readDocs = (file: string): BfclFunctionDoc[] =>
  readFileSync(path.join(here, 'data', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BfclFunctionDoc);

/** Every function of the ported classes, in the docs' order, with its class. */
export const BFCL_FUNCTIONS: readonly (BfclFunctionDoc & { className: BfclClass })[] = (Object.keys(BFCL_CLASSES) as BfclClass[]).flatMap(
  (className) => readDocs(BFCL_CLASSES[className].docs).map((doc) => ({ ...doc, className })),
);

const functionsByName = new Map(BFCL_FUNCTIONS.map((fn) => [fn.name, fn]));

/** The functions that change a class's state (the oracle keeps them in order). */
export const BFCL_WRITE_FUNCTIONS: ReadonlySet<string> = new Set([
  'startEngine',
  'fillFuelTank',
  'lockDoors',
  'adjustClimateControl',
  'setHeadlights',
  'activateParkingBrake',
  'pressBrakePedal',
  'releaseBrakePedal',
  'setCruiseControl',
  'set_navigation',
  'authenticate_twitter',
  'post_tweet',
  'retweet',
  'comment',
  'mention',
  'follow_user',
  'unfollow_user',
  'message_login',
  'send_message',
  'delete_message',
  'add_contact',
]);

type Instance = VehicleControl | Twitter | MessageApi;

/** The instances of one task's involved classes. */
export class BfclWorld {
  readonly instances: Partial<Record<BfclClass, Instance>> = {};

  constructor(
    readonly taskId: string,
    initialConfig: Record<string, Record<string, unknown>>,
    involvedClasses: readonly string[],
  ) {
    for (const className of involvedClasses) {
      if (!Object.hasOwn(BFCL_CLASSES, className)) throw new Error(`task ${taskId}: class ${className} is not ported`);
      const known = className as BfclClass;
      this.instances[known] = BFCL_CLASSES[known].create(structuredClone(initialConfig[known] ?? {}));
    }
  }

  /** Calls a function by name with its arguments by name, as BFCL's executor does on the task's instances. */
  call(name: string, args: Record<string, unknown>): unknown {
    const doc = functionsByName.get(name);
    if (!doc) throw new Error(`no function ${name}`);
    const instance = this.instances[doc.className];
    if (!instance) throw new Error(`${name} belongs to ${doc.className}, which this task does not involve`);
    const method = (instance as unknown as Record<string, (a: Record<string, unknown>) => unknown>)[name];
    if (typeof method !== 'function') throw new Error(`${doc.className} has no method ${name}`);
    return method.call(instance, args);
  }

  /** The public state of every instance, by class (what BFCL's state check compares). */
  state(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.instances).map(([className, instance]) => [className, instance.state]));
  }
}

/** The parameter names of a function in its Python signature's order (for positional arguments). */
export function parameterNames(name: string): string[] {
  const doc = functionsByName.get(name);
  if (!doc) throw new Error(`no function ${name}`);
  return Object.keys(doc.parameters.properties);
}
