// Hand-written build output following BUILD_LAYOUT: a proxy module whose functions call the host global.
const call = (fn, args, resultMode) => globalThis.__agentSpaces.call('math', fn, args, resultMode);
export const add = (args) => call('add', args);
export const sleep = (args) => call('sleep', args);
export const echo = (args) => call('echo', args);
export const fail = (args) => call('fail', args);
export const math = { add, sleep, echo, fail };
export default math;
