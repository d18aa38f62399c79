// The implementation of capabilities/train-schedule.json: one exported function per tool name.
// Local data, so the example space needs no network.

interface Train {
  id: string;
  hour: number;
  minute: number;
  destination: string;
  platform: string;
  operator: string;
  stops: string[];
}

const TRAINS: Train[] = [
  {
    id: 'IC-101',
    hour: 6,
    minute: 42,
    destination: 'Harbor',
    platform: '3',
    operator: 'Intercity',
    stops: ['Central', 'Museum', 'Harbor'],
  },
  {
    id: 'RE-204',
    hour: 7,
    minute: 15,
    destination: 'Airport',
    platform: '1',
    operator: 'Regional Express',
    stops: ['Central', 'Park', 'Airport'],
  },
  {
    id: 'IC-105',
    hour: 8,
    minute: 5,
    destination: 'Northgate',
    platform: '4',
    operator: 'Intercity',
    stops: ['Central', 'University', 'Northgate'],
  },
  {
    id: 'S-310',
    hour: 9,
    minute: 30,
    destination: 'Harbor',
    platform: '2',
    operator: 'City Rail',
    stops: ['Central', 'Old Town', 'Museum', 'Harbor'],
  },
  {
    id: 'RE-208',
    hour: 11,
    minute: 55,
    destination: 'Airport',
    platform: '1',
    operator: 'Regional Express',
    stops: ['Central', 'Park', 'Airport'],
  },
  {
    id: 'IC-111',
    hour: 13,
    minute: 20,
    destination: 'Northgate',
    platform: '4',
    operator: 'Intercity',
    stops: ['Central', 'University', 'Northgate'],
  },
  { id: 'S-322', hour: 17, minute: 45, destination: 'Old Town', platform: '2', operator: 'City Rail', stops: ['Central', 'Old Town'] },
  {
    id: 'RE-230',
    hour: 21,
    minute: 10,
    destination: 'Airport',
    platform: '1',
    operator: 'Regional Express',
    stops: ['Central', 'Park', 'Airport'],
  },
];

export function getSchedule({ station }: { station?: string; date?: string }) {
  return TRAINS.filter((train) => !station || train.stops.includes(station)).map(({ id, hour, minute, destination, platform }) => ({
    id,
    hour,
    minute,
    destination,
    platform,
  }));
}

export function getTrainDetails({ trainId }: { trainId: string }) {
  const train = TRAINS.find((candidate) => candidate.id === trainId);
  if (!train) throw new Error(`no train with id "${trainId}" (known: ${TRAINS.map((t) => t.id).join(', ')})`);
  return { id: train.id, operator: train.operator, stops: train.stops };
}
