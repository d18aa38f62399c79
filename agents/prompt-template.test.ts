import { describe, expect, it } from 'vitest';
import {
  fillPromptTemplate,
  fillTemplate,
  parseTemplate,
  unknownPlaceholders,
  unusedParameters,
  type TemplateTool,
} from './prompt-template.js';

const bookFlight: TemplateTool = {
  name: 'book_flight',
  description: 'Books a flight ticket for a user.',
  parameters: {
    type: 'object',
    properties: {
      destination: { type: 'string' },
      departure_date: { type: 'string' },
      seats: { type: 'integer', default: 1 },
      note: { type: 'string' },
    },
    required: ['destination', 'departure_date'],
  },
  prompt: 'The user wants to book a flight to {destination} on {departure_date}, please book accordingly',
};

describe('fillTemplate', () => {
  it("fills the seed's example", () => {
    expect(fillTemplate(bookFlight, { destination: 'Paris, France', departure_date: '2026-05-01' })).toBe(
      'The user wants to book a flight to Paris, France on 2026-05-01, please book accordingly',
    );
  });

  it('{name} is the tool name unless a parameter is called name; {tool.name} is always the tool name', () => {
    expect(fillTemplate({ ...bookFlight, prompt: 'tool {name} to {destination}' }, { destination: 'Oslo' })).toBe(
      'tool book_flight to Oslo',
    );
    const greet: TemplateTool = {
      name: 'greet',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      prompt: 'Tool {tool.name} greets {name}',
    };
    expect(fillTemplate(greet, { name: 'Ada' })).toBe('Tool greet greets Ada');
    expect(fillTemplate({ ...greet, prompt: '{tool.description}! {name}' }, { name: 'Ada' })).toBe('! Ada');
  });

  it('a missing optional parameter renders its default, else "(not given)" in a sentence that carries a given argument', () => {
    const tool = { ...bookFlight, prompt: '{destination}: {seats} seat(s), note {note}' };
    expect(fillTemplate(tool, { destination: 'Rome' })).toBe('Rome: 1 seat(s), note (not given)');
    expect(fillTemplate(tool, { destination: 'Rome', seats: 3, note: '' })).toBe('Rome: 3 seat(s), note ');
  });

  it('drops the sentence of a missing optional parameter without a default, never sending a literal {param}', () => {
    const trip: TemplateTool = {
      name: 'plan_trip',
      parameters: {
        type: 'object',
        properties: { destination: { type: 'string' }, year: { type: 'integer' }, budget: { type: 'number' } },
        required: ['destination'],
      },
      prompt: 'Plan a trip to {destination}. Travel in {year}! Keep it under {budget} EUR.\nAnswer in English.',
    };
    const filled = fillPromptTemplate(trip, { destination: 'Oslo', budget: 900 });
    expect(filled.text).toBe('Plan a trip to Oslo. Keep it under 900 EUR.\nAnswer in English.');
    expect(filled.notGiven).toEqual(['year']);
    expect(fillTemplate(trip, { destination: 'Oslo' })).toBe('Plan a trip to Oslo.\nAnswer in English.');
    expect(fillTemplate(trip, { destination: 'Oslo', year: 2027, budget: 900 })).toBe(
      'Plan a trip to Oslo. Travel in 2027! Keep it under 900 EUR.\nAnswer in English.',
    );
    // A placeholder on a line of its own goes with its line.
    expect(fillTemplate({ ...trip, prompt: 'Year:\n{year}\nGo to {destination}.' }, { destination: 'Oslo' })).toBe('Year:\nGo to Oslo.');
    for (const args of [{ destination: 'Oslo' }, { destination: 'Oslo', budget: 1 }, {}]) {
      expect(fillTemplate(trip, args)).not.toMatch(/\{(year|budget|destination)\}/);
    }
  });

  it('reports placeholders that name nothing and arguments the template does not use, and passes the latter on', () => {
    const filled = fillPromptTemplate(
      { ...bookFlight, prompt: 'Fly to {destination} from {origin}.' },
      { destination: 'Lima', departure_date: '2026-05-01' },
    );
    expect(filled.unknown).toEqual(['origin']);
    expect(filled.unused).toEqual(['departure_date']);
    expect(filled.text).toBe('Fly to Lima from {origin}.\n\nOther arguments (JSON): {"departure_date":"2026-05-01"}');
  });

  it('inserts non-strings as JSON', () => {
    const tool: TemplateTool = {
      name: 'plan',
      parameters: { type: 'object', properties: { stops: { type: 'array', items: { type: 'string' } }, flexible: { type: 'boolean' } } },
      prompt: 'stops {stops} flexible {flexible}',
    };
    expect(fillTemplate(tool, { stops: ['A', 'B'], flexible: false })).toBe('stops ["A","B"] flexible false');
  });

  it('{{ and }} are literal braces; other braces are text', () => {
    const tool = { ...bookFlight, prompt: 'Reply as {{"to": "{destination}"}} and keep {{destination}}; { "json": 1 }' };
    expect(fillTemplate(tool, { destination: 'Lima' })).toBe('Reply as {"to": "Lima"} and keep {destination}; { "json": 1 }');
  });

  it('appends the arguments when the template uses none', () => {
    expect(fillTemplate({ ...bookFlight, prompt: 'Book it.' }, { destination: 'Lima' })).toBe(
      'Book it.\n\nArguments (JSON): {"destination":"Lima"}',
    );
    expect(fillTemplate({ ...bookFlight, prompt: 'Book it.' }, {})).toBe('Book it.');
  });
});

describe('unknownPlaceholders', () => {
  it('names placeholders that are neither parameters nor tool fields', () => {
    expect(unknownPlaceholders({ ...bookFlight, prompt: '{destination} {origin} {name} {tool.name} {origin} {{literal}}' })).toEqual([
      'origin',
    ]);
    expect(unknownPlaceholders(bookFlight)).toEqual([]);
  });

  it('parses escapes into text', () => {
    expect(parseTemplate('a {{b}} {c}')).toEqual([
      { kind: 'text', text: 'a {b} ' },
      { kind: 'placeholder', key: 'c', raw: '{c}' },
    ]);
  });
});

describe('unusedParameters', () => {
  it('lists the declared parameters the template never mentions, in declaration order', () => {
    expect(unusedParameters(bookFlight)).toEqual(['seats', 'note']);
  });

  it('is empty when every parameter is a placeholder, and ignores {name} and {tool.*}', () => {
    expect(unusedParameters({ ...bookFlight, prompt: '{tool.name}: {destination} {departure_date} {seats} {note}' })).toEqual([]);
  });
});
