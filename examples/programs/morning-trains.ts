// The seed's story, as a model would write it: the schedule is filtered in code (never pasted into
// the model's context), facts are fetched in parallel, and a note is saved. It checks its own output.
import { trainSchedule } from '@capabilities/train-schedule';
import { getWeather } from '@capabilities/get-weather';
import { notes } from '@capabilities/notes';
import { stations } from '@capabilities/mcp-stations';

const trips = await trainSchedule.getSchedule({ station: 'Central' });
const morning = trips.filter((trip) => trip.hour < 12);
const destinations = [...new Set(morning.map((trip) => trip.destination))];

// One round trip each, all at once: weather from a JSON tool, station facts from an MCP server.
const facts = await Promise.all(
  destinations.map(async (name) => {
    const [weather, station] = await Promise.all([getWeather({ location: name }), stations.stationInfo({ name })]);
    return { name, weather: `${weather.temperature}°C, ${weather.description}`, stepFree: station.accessible };
  }),
);

const lines = morning.map((trip) => {
  const fact = facts.find((f) => f.name === trip.destination);
  const time = `${String(trip.hour).padStart(2, '0')}:${String(trip.minute).padStart(2, '0')}`;
  return `${time} ${trip.id.padEnd(7)} → ${trip.destination.padEnd(10)} platform ${trip.platform}  ${fact?.weather ?? ''}${fact?.stepFree ? ' (step-free)' : ''}`;
});
const note = await notes.create({ title: 'Morning Trains', content: lines.join('\n') });

console.log(`${morning.length} morning trains from Central, ${trips.length - morning.length} later`);
for (const line of lines) console.log(line);

// Self-check: the example fails loudly if the capabilities stop doing what it expects.
if (morning.length !== 5 || destinations.length !== 3)
  throw new Error(`expected 5 morning trains to 3 destinations, got ${morning.length} to ${destinations.length}`);
if (!note.id || note.title !== 'Morning Trains') throw new Error('the note was not saved');

export default { morningTrains: morning.length, destinations, noteId: note.id };
