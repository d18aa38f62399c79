/**
 * BFCL's VehicleControlAPI, ported to TypeScript from ShishirPatil/gorilla
 * (`berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/vehicle_control.py`
 * at commit 6ea5797, Apache-2.0: see data/LICENSE). Each method takes the call's keyword arguments and
 * returns what the Python method returns; errors are returned as `{ error }` values, as in BFCL.
 *
 * Kept as in the original: the state is the public (not `_`-prefixed) attributes, which BFCL's state
 * check compares; the brake pedal's force is private (`_brakePedalForce`), so it does not count.
 * The two random read-outs (outside temperature, current speed) draw from Python's generator with the
 * scenario's seed (python-random.ts), so they give BFCL's numbers. Not ported: the long-context
 * variants (BFCL's base category never uses them).
 */

import { PythonRandom } from './python-random.js';

const MAX_FUEL_LEVEL = 50;
const MIN_FUEL_LEVEL = 0.0;
const MILE_PER_GALLON = 20.0;

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

/** The public state, compared by the check (the attribute names of the Python class). */
export interface VehicleState {
  fuelLevel: number;
  batteryVoltage: number;
  engine_state: string;
  remainingUnlockedDoors: number;
  doorStatus: Record<string, string>;
  acTemperature: number;
  fanSpeed: number;
  acMode: string;
  humidityLevel: number;
  headLightStatus: string;
  parkingBrakeStatus: string;
  brakePedalStatus: string;
  distanceToNextVehicle: number;
  cruiseStatus: string;
  destination: string;
  frontLeftTirePressure: number;
  frontRightTirePressure: number;
  rearLeftTirePressure: number;
  rearRightTirePressure: number;
  long_context: boolean;
}

/** Private attributes: not part of the state check. */
interface VehiclePrivate {
  parkingBrakeForce: number;
  slopeAngle: number;
  brakePedalForce: number;
  random: PythonRandom;
}

/** Distances between pairs of zip codes, in km, as the Python method's chain of cases. */
const DISTANCES: [string, string, number][] = [
  ['83214', '74532', 750.0],
  ['56108', '62947', 320.0],
  ['71354', '83462', 450.0],
  ['47329', '52013', 290.0],
  ['69238', '51479', 630.0],
  ['94016', '83214', 980.0],
  ['94016', '94704', 600.0],
  ['94704', '08540', 2550.0],
  ['94016', '08540', 1950.0],
  ['62947', '47329', 1053.0],
  ['94016', '62947', 780.0],
  ['74532', '94016', 880.0],
];

const ZIP_CODES: Record<string, string> = {
  Rivermist: '83214',
  Stonebrook: '74532',
  Maplecrest: '56108',
  Silverpine: '62947',
  Shadowridge: '71354',
  'Sunset Valley': '83462',
  Oakendale: '47329',
  Willowbend: '52013',
  'Crescent Hollow': '69238',
  Autumnville: '51479',
  'San Francisco': '94016',
};

const pick = <T>(scenario: Args, key: string, fallback: T): T => (Object.hasOwn(scenario, key) ? (scenario[key] as T) : fallback);

export class VehicleControl {
  state: VehicleState;
  private hidden: VehiclePrivate;

  /** `_load_scenario`: the task's initial configuration over the defaults (the scenario's keys are the Python's). */
  constructor(scenario: Args = {}) {
    const doorStatus = structuredClone(
      pick<Record<string, string>>(scenario, 'doorStatus', {
        driver: 'unlocked',
        passenger: 'unlocked',
        rear_left: 'unlocked',
        rear_right: 'unlocked',
      }),
    );
    this.state = {
      fuelLevel: pick(scenario, 'fuelLevel', 0.0),
      batteryVoltage: pick(scenario, 'batteryVoltage', 12.6),
      engine_state: pick(scenario, 'engineState', 'stopped'),
      // The Python reads remainingUnlockedDoors, then recounts it from the doors.
      remainingUnlockedDoors: 4 - Object.values(doorStatus).filter((status) => status === 'locked').length,
      doorStatus,
      acTemperature: pick(scenario, 'acTemperature', 25.0),
      fanSpeed: pick(scenario, 'fanSpeed', 50),
      acMode: pick(scenario, 'acMode', 'auto'),
      humidityLevel: pick(scenario, 'humidityLevel', 50.0),
      headLightStatus: pick(scenario, 'headLightStatus', 'off'),
      parkingBrakeStatus: pick(scenario, 'parkingBrakeStatus', 'released'),
      brakePedalStatus: pick(scenario, 'brakePedalStatus', 'released'),
      distanceToNextVehicle: pick(scenario, 'distanceToNextVehicle', 50.0),
      cruiseStatus: pick(scenario, 'cruiseStatus', 'inactive'),
      destination: pick(scenario, 'destination', 'None'),
      frontLeftTirePressure: pick(scenario, 'frontLeftTirePressure', 32.0),
      frontRightTirePressure: pick(scenario, 'frontRightTirePressure', 32.0),
      rearLeftTirePressure: pick(scenario, 'rearLeftTirePressure', 30.0),
      rearRightTirePressure: pick(scenario, 'rearRightTirePressure', 30.0),
      long_context: false,
    };
    this.hidden = {
      parkingBrakeForce: pick(scenario, 'parkingBrakeForce', 0.0),
      slopeAngle: pick(scenario, 'slopeAngle', 0.0),
      brakePedalForce: pick(scenario, 'brakePedalForce', 0.0),
      random: new PythonRandom(pick(scenario, 'random_seed', 141053)),
    };
  }

  startEngine({ ignitionMode }: Args): Result {
    const s = this.state;
    if (ignitionMode === 'STOP') s.engine_state = 'stopped';
    if (s.remainingUnlockedDoors > 0) {
      const unlocked = Object.entries(s.doorStatus)
        .filter(([, status]) => status === 'unlocked')
        .map(([door]) => door);
      return { error: `All doors must be locked before starting the engine. Here are the unlocked doors: ${unlocked.join(', ')}` };
    }
    if (s.brakePedalStatus !== 'pressed') return { error: 'Brake pedal needs to be pressed when starting the engine.' };
    if (this.hidden.brakePedalForce !== 1000.0) return { error: 'Must press the brake fully before starting the engine.' };
    if (s.fuelLevel < MIN_FUEL_LEVEL) return { error: 'Fuel tank is empty.' };
    if (ignitionMode !== 'START') return { error: 'Invalid ignition mode.' };
    s.engine_state = 'running';
    return { engineState: s.engine_state, fuelLevel: s.fuelLevel, batteryVoltage: s.batteryVoltage };
  }

  fillFuelTank({ fuelAmount }: Args): Result {
    const amount = fuelAmount as number;
    if (amount < 0) return { error: 'Fuel amount cannot be negative.' };
    if (this.state.fuelLevel + amount > MAX_FUEL_LEVEL) return { error: 'Cannot fill gas above the tank capacity.' };
    if (this.state.fuelLevel + amount < MIN_FUEL_LEVEL) return { error: 'Fuel tank is empty. Min fuel level is 0 gallons.' };
    this.state.fuelLevel += amount;
    return { fuelLevel: this.state.fuelLevel };
  }

  lockDoors({ unlock, door }: Args): Result {
    const s = this.state;
    const wanted = unlock ? 'unlocked' : 'locked';
    for (const d of door as string[]) {
      // Python raises KeyError on a door it does not know.
      if (!Object.hasOwn(s.doorStatus, d)) throw new Error(`'${d}'`);
      if (s.doorStatus[d] === wanted) continue;
      s.doorStatus[d] = wanted;
      s.remainingUnlockedDoors += unlock ? 1 : -1;
    }
    return { lockStatus: wanted, remainingUnlockedDoors: s.remainingUnlockedDoors };
  }

  adjustClimateControl({ temperature, unit = 'celsius', fanSpeed = 50, mode = 'auto' }: Args): Result {
    const speed = fanSpeed as number;
    if (!(speed >= 0 && speed <= 100)) return { error: 'Fan speed must be between 0 and 100.' };
    const degrees = temperature as number;
    this.state.acTemperature = unit === 'fahrenheit' ? ((degrees - 32) * 5) / 9 : degrees;
    this.state.fanSpeed = speed;
    this.state.acMode = mode as string;
    return { currentACTemperature: degrees, climateMode: mode, humidityLevel: this.state.humidityLevel };
  }

  get_outside_temperature_from_google(): Result {
    return { outsideTemperature: this.hidden.random.uniform(-10.0, 40.0) };
  }

  get_outside_temperature_from_weather_com(): Result {
    return { error: 404 };
  }

  setHeadlights({ mode }: Args): Result {
    if (mode !== 'on' && mode !== 'off' && mode !== 'auto') return { error: 'Invalid headlight mode.' };
    this.state.headLightStatus = mode === 'on' ? 'on' : 'off';
    return { headlightStatus: this.state.headLightStatus };
  }

  displayCarStatus({ option }: Args): Result {
    const s = this.state;
    const h = this.hidden;
    const byOption: Record<string, () => Result> = {
      fuel: () => ({ fuelLevel: s.fuelLevel }),
      battery: () => ({ batteryVoltage: s.batteryVoltage }),
      doors: () => ({ doorStatus: s.doorStatus }),
      climate: () => ({
        currentACTemperature: s.acTemperature,
        fanSpeed: s.fanSpeed,
        climateMode: s.acMode,
        humidityLevel: s.humidityLevel,
      }),
      headlights: () => ({ headlightStatus: s.headLightStatus }),
      parkingBrake: () => ({ parkingBrakeStatus: s.parkingBrakeStatus, parkingBrakeForce: h.parkingBrakeForce, slopeAngle: h.slopeAngle }),
      brakePedal: () => ({ brakePedalStatus: s.brakePedalStatus, brakePedalForce: h.brakePedalForce }),
      engine: () => ({ engineState: s.engine_state }),
    };
    const show = typeof option === 'string' && Object.hasOwn(byOption, option) ? byOption[option] : undefined;
    return show ? show() : { error: 'Invalid option' };
  }

  activateParkingBrake({ mode }: Args): Result {
    if (mode !== 'engage' && mode !== 'release') return { error: 'Invalid mode' };
    const engage = mode === 'engage';
    this.state.parkingBrakeStatus = engage ? 'engaged' : 'released';
    this.hidden.parkingBrakeForce = engage ? 500.0 : 0.0;
    this.hidden.slopeAngle = 10.0;
    return { parkingBrakeStatus: this.state.parkingBrakeStatus, _parkingBrakeForce: this.hidden.parkingBrakeForce, _slopeAngle: 10.0 };
  }

  pressBrakePedal({ pedalPosition }: Args): Result {
    const position = pedalPosition as number;
    if (!(position >= 0 && position <= 1)) return { error: 'Pedal position must be between 0 and 1.' };
    if (position === 0) return this.releaseBrakePedal();
    const force = position * 1000;
    this.state.brakePedalStatus = 'pressed';
    this.hidden.brakePedalForce = force;
    return { brakePedalStatus: 'pressed', brakePedalForce: force };
  }

  releaseBrakePedal(): Result {
    this.state.brakePedalStatus = 'released';
    this.hidden.brakePedalForce = 0.0;
    return { brakePedalStatus: 'released', brakePedalForce: 0.0 };
  }

  setCruiseControl({ speed, activate, distanceToNextVehicle }: Args): Result {
    const distance = Number(distanceToNextVehicle);
    const kmh = Number(speed);
    if (this.state.engine_state === 'stopped') return { error: 'Start the engine before activating the cruise control.' };
    this.state.distanceToNextVehicle = distance;
    if (activate && (kmh < 0 || kmh > 120 || kmh % 5 !== 0)) return { error: 'Invalid speed' };
    this.state.cruiseStatus = activate ? 'active' : 'inactive';
    return { cruiseStatus: this.state.cruiseStatus, currentSpeed: kmh, distanceToNextVehicle: distance };
  }

  get_current_speed(): Result {
    return { currentSpeed: this.hidden.random.uniform(0.0, 120.0) };
  }

  display_log({ messages }: Args): Result {
    return { log: messages };
  }

  estimate_drive_feasibility_by_mileage({ distance }: Args): Result {
    return { canDrive: !(this.state.fuelLevel * MILE_PER_GALLON < (distance as number)) };
  }

  liter_to_gallon({ liter }: Args): Result {
    return { gallon: (liter as number) * 0.264172 };
  }

  gallon_to_liter({ gallon }: Args): Result {
    return { liter: (gallon as number) * 3.78541 };
  }

  estimate_distance({ cityA, cityB }: Args): Result {
    const pair = DISTANCES.find(([a, b]) => (cityA === a && cityB === b) || (cityA === b && cityB === a));
    return pair ? { distance: pair[2] } : { error: 'distance not found in database.' };
  }

  get_zipcode_based_on_city({ city }: Args): Result {
    return { zipcode: typeof city === 'string' && Object.hasOwn(ZIP_CODES, city) ? ZIP_CODES[city] : '00000' };
  }

  set_navigation({ destination }: Args): Result {
    this.state.destination = destination as string;
    return { status: `Navigating to ${destination as string}` };
  }

  check_tire_pressure(): Result {
    const s = this.state;
    const average = (s.frontLeftTirePressure + s.frontRightTirePressure + s.rearLeftTirePressure + s.rearRightTirePressure) / 4;
    return {
      frontLeftTirePressure: s.frontLeftTirePressure,
      frontRightTirePressure: s.frontRightTirePressure,
      rearLeftTirePressure: s.rearLeftTirePressure,
      rearRightTirePressure: s.rearRightTirePressure,
      healthy_tire_pressure: average >= 30 && average <= 35,
      car_info: {},
    };
  }

  find_nearest_tire_shop(): Result {
    return { shopLocation: '456 Oakwood Avenue, Rivermist, 83214' };
  }
}
