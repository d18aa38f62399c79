import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { decodeSourceMap } from './source-map.js';

describe('decodeSourceMap', () => {
  it('maps generated positions back to the TypeScript esbuild read', () => {
    const source = 'interface A { a: number }\n\nconst value: A = { a: 1 };\nfunction fail(): never {\n  throw new Error("x" + value.a);\n}\nfail();\n';
    const output = transformSync(source, { loader: 'ts', sourcemap: 'external', format: 'esm' });
    const generatedLines = output.code.split('\n');
    const throwLine = generatedLines.findIndex((line) => line.includes('throw new Error')) + 1;
    const throwColumn = (generatedLines[throwLine - 1] ?? '').indexOf('new Error') + 1;
    expect(decodeSourceMap(output.map).originalPosition({ line: throwLine, column: throwColumn })).toEqual({ line: 5, column: 9 });
  });
  it('says undefined for unmapped lines', () => {
    expect(decodeSourceMap('{"mappings":";;"}').originalPosition({ line: 2, column: 1 })).toBeUndefined();
  });
});
