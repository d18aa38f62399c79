import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from './catalog-types.js';
import { checkCodeAccess } from './check-code-access.js';

function entry(module: string, namespace: string, fn: string): CatalogEntry {
  return { id: `${module}.${fn}`, module, namespace, function: fn, toolName: fn, signature: '', description: '', parameters: [], requiresApproval: false };
}

const catalog = [entry('crm', 'crm', 'searchCustomers'), entry('crm', 'crm', 'createTicket'), entry('get-weather', 'getWeather', 'getWeather')];
const allowed = new Set(['crm.searchCustomers', 'get-weather.getWeather']);

describe('checkCodeAccess', () => {
  it('allows code that uses only allowed functions', () => {
    expect(checkCodeAccess(`import { crm } from '@capabilities/crm';\nimport { getWeather } from '@capabilities/get-weather';\nconst c = await crm.searchCustomers({ query: 'a' });\nexport default await getWeather({ location: 'x' });`, catalog, allowed)).toEqual([]);
  });

  it('refuses hidden functions reached through the namespace or by name', () => {
    expect(checkCodeAccess(`import { crm } from '@capabilities/crm';\nawait crm.createTicket({});`, catalog, allowed)).toEqual(['crm.createTicket is not available to this task']);
    expect(checkCodeAccess(`import { createTicket as t } from '@capabilities/crm';`, catalog, allowed)).toEqual(['crm.createTicket is not available to this task']);
  });

  it('refuses what it cannot follow: import *, a namespace passed around, dynamic imports', () => {
    expect(checkCodeAccess(`import * as c from '@capabilities/crm';`, catalog, allowed)[0]).toMatch(/by name/);
    expect(checkCodeAccess(`import { crm } from '@capabilities/crm';\nconst x = crm;\nawait x['create' + 'Ticket']({});`, catalog, allowed)[0]).toMatch(/only as crm\.<function>/);
    expect(checkCodeAccess(`const m = await import('@capabilities/crm');`, catalog, allowed)[0]).toMatch(/dynamic imports/);
  });
});
