import { transform } from 'sucrase';
import { describe, expect, it } from 'vitest';
import { decodeMappings, decodeSourceMap } from './source-map.js';

describe('decodeSourceMap', () => {
  it('maps generated positions back to the TypeScript sucrase read', () => {
    const source =
      'interface A { a: number }\n\nconst value: A = { a: 1 };\nfunction fail(): never {\n  throw new Error("x" + (value as A).a);\n}\nfail();\n';
    const output = transform(source, {
      transforms: ['typescript'],
      filePath: 'program.ts',
      sourceMapOptions: { compiledFilename: 'program.js' },
    });
    const generatedLines = output.code.split('\n');
    const throwLine = generatedLines.findIndex((line) => line.includes('throw new Error')) + 1;
    const column = (text: string): number => (generatedLines[throwLine - 1] ?? '').indexOf(text) + 1;
    const lookup = decodeSourceMap(JSON.stringify(output.sourceMap));
    expect(lookup.originalPosition({ line: throwLine, column: column('new Error') })).toEqual({ line: 5, column: 9 });
    expect(lookup.originalPosition({ line: throwLine, column: column('.a)') })).toEqual({ line: 5, column: 37 });
  });
  it('says undefined for unmapped lines', () => {
    expect(decodeSourceMap('{"mappings":";;"}').originalPosition({ line: 2, column: 1 })).toBeUndefined();
    expect(decodeMappings(';;').originalPosition({ line: 2, column: 1 })).toBeUndefined();
  });
});
