import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from '../../runtime/index.js';
import { checkInstallation } from './doctor.js';

describe('doctor', () => {
  it('reports every registered engine, in auto order, and what auto picks', async () => {
    const report = await checkInstallation();
    expect(Object.keys(report.engines)).toEqual([...ENGINE_NAMES]);
    for (const name of ENGINE_NAMES) expect(report.engines[name]).toMatchObject({ engine: name, available: true });
    expect(ENGINE_NAMES).toContain(report.auto.worker.engine);
    expect(report.auto.worker.reason).toMatch(/^auto: /);
    // Every engine loads on this machine: nothing to install, so no advice but a missing flag's.
    expect(report.advice.every((line) => line.includes('--no-node-snapshot'))).toBe(true);
    expect(report.ok).toBe(true);
  });
});
