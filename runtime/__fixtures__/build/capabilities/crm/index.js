const call = (fn, args, resultMode) => globalThis.__agentSpaces.call('crm', fn, args, resultMode);
export const getCustomer = (args) => call('getCustomer', args);
export const deleteCustomer = (args) => call('deleteCustomer', args);
export const crm = { getCustomer, deleteCustomer };
export default crm;
