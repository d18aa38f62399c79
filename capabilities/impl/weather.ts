// The implementation of capabilities/weather.json (an OpenAI-style single tool).

const TABLE: Record<string, { celsius: number; description: string }> = {
  'san francisco': { celsius: 16, description: 'fog in the morning, sunny later' },
  london: { celsius: 11, description: 'light rain' },
  tokyo: { celsius: 22, description: 'clear' },
  berlin: { celsius: 9, description: 'overcast' },
  harbor: { celsius: 14, description: 'windy' },
  airport: { celsius: 12, description: 'cloudy' },
  northgate: { celsius: 7, description: 'frost early, clearing' },
};

export function get_weather({ location, unit = 'celsius' }: { location: string; unit?: 'celsius' | 'fahrenheit' }) {
  const entry = TABLE[location.trim().toLowerCase()];
  if (!entry) throw new Error(`no weather for "${location}" (known: ${Object.keys(TABLE).join(', ')})`);
  const temperature = unit === 'celsius' ? entry.celsius : Math.round((entry.celsius * 9) / 5 + 32);
  return { location, temperature, unit, description: entry.description };
}
