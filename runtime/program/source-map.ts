/** A decoded source map (version 3, one source) that maps generated positions back. */
import type { Position } from './program-shape.js';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGITS = new Map([...BASE64].map((character, index) => [character, index]));

/** [generated column, source line, source column], all 0-based, sorted by generated column. */
type Segment = [number, number, number];

export interface SourceMapLookup {
  /** The source position of a generated one (both 1-based), or undefined when unmapped. */
  originalPosition(position: Position): Position | undefined;
}

export function decodeSourceMap(json: string): SourceMapLookup {
  return decodeMappings((JSON.parse(json) as { mappings: string }).mappings);
}

/** Decodes the `mappings` field of a source map. */
export function decodeMappings(mappings: string): SourceMapLookup {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  let sourceIndex = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Segment[] = [];
    let generatedColumn = 0;
    for (const segmentText of lineText.split(',')) {
      if (segmentText === '') continue;
      const values = decodeVlq(segmentText);
      generatedColumn += values[0] ?? 0;
      if (values.length < 4) continue;
      sourceIndex += values[1] ?? 0;
      sourceLine += values[2] ?? 0;
      sourceColumn += values[3] ?? 0;
      segments.push([generatedColumn, sourceLine, sourceColumn]);
    }
    lines.push(segments);
  }
  void sourceIndex;
  return {
    originalPosition({ line, column }) {
      const segments = lines[line - 1];
      if (segments === undefined || segments.length === 0) return undefined;
      let found: Segment | undefined;
      for (const segment of segments) {
        if (segment[0] > column - 1) break;
        found = segment;
      }
      found ??= segments[0];
      if (found === undefined) return undefined;
      return { line: found[1] + 1, column: found[2] + 1 + Math.max(0, column - 1 - found[0]) };
    },
  };
}

function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const character of text) {
    const digit = DIGITS.get(character);
    if (digit === undefined) throw new Error(`invalid base64 digit "${character}" in source map`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}
