// ---------------------------------------------------------------- URL (parsed by the host's WHATWG parser)
const URL_MAX_INPUT = URL_LIMITS.maxInputChars,
  URL_MAX_HREF = URL_LIMITS.maxHrefChars;
const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
/** URL → { parts: the host's components (see URL_PARTS), params: its URLSearchParams }. */
/** The host's components of a URL, in the order of URL_PARTS. */
type UrlParts = string[];
interface UrlState {
  parts: UrlParts;
  params: URLSearchParams;
}
const urlStates = new WeakMapConstructor<object, UrlState>();
function urlState(url: object): UrlState {
  const state = weakMapGet(urlStates, url) as UrlState | undefined;
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a URL');
  return state;
}
function urlTooLong(): RangeError {
  return new RangeErrorConstructor(
    'URL: an input is longer than ' +
      URL_MAX_INPUT +
      ' characters, or the URL it makes longer than ' +
      URL_MAX_HREF +
      ", the sandbox's limits",
  );
}
/** A URL input as a USVString; its length is checked first, so a huge one is never scanned or sent. */
function urlInput(value: unknown): string {
  const text = StringConstructor(value);
  if (text.length > URL_MAX_INPUT) throw urlTooLong();
  return toUsvString(text);
}
/** The host's components of a URL, or undefined when it is not valid. Throws past the size limits. */
function hostUrl(operation: 'parse' | 'set', a: string, b: string | undefined, c?: string): UrlParts | undefined {
  const reply = StringConstructor(urlHost(operation, a, b, c));
  if (reply === URL_TOO_LONG) throw urlTooLong();
  if (reply === URL_INVALID) return undefined;
  return jsonParse(reply) as UrlParts;
}
function invalidUrl(input: string): TypeError {
  const error = new TypeErrorConstructor('Invalid URL: ' + jsonStringify(stringSlice(input, 0, 200)) + (input.length > 200 ? '…' : ''));
  defineProperty(error, 'code', { value: 'ERR_INVALID_URL', writable: true, enumerable: true, configurable: true });
  return error;
}
function parseUrl(url: unknown, base: unknown): UrlParts | undefined {
  return hostUrl('parse', urlInput(url), base === undefined ? undefined : urlInput(base));
}
function newUrl(target: URL, parts: UrlParts): URL {
  const state = { __proto__: null, parts, params: undefined } as unknown as UrlState;
  weakMapSet(urlStates, target, state);
  state.params = newParams(target, stringSlice(parts[9], 1));
  return target;
}
/** A setter: the host applies it to the current href (href itself throws on an invalid URL, the rest ignore what they cannot use). */
function setUrlPart(url: URL, part: string, value: unknown, fromSetter: boolean): void {
  const state = urlState(url);
  const text = urlInput(value);
  const parts = hostUrl('set', state.parts[0], part, text);
  if (parts === undefined) {
    if (part === 'href') throw invalidUrl(text);
    return;
  }
  const searchChanged = parts[9] !== state.parts[9];
  state.parts = parts;
  // A change made through the URL is seen by its searchParams (one made through them already is).
  if (fromSetter && searchChanged) paramsState(state.params).list = parseForm(stringSlice(parts[9], 1));
}

class URL {
  constructor(url: unknown, base: unknown = undefined) {
    requireArguments('URL', arguments.length, 1);
    const input = urlInput(url);
    const parts = parseUrl(input, base);
    if (parts === undefined) throw invalidUrl(input);
    newUrl(this, parts);
  }
  static canParse(url: unknown, base: unknown = undefined): boolean {
    requireArguments('URL.canParse', arguments.length, 1);
    return parseUrl(url, base) !== undefined;
  }
  static parse(url: unknown, base: unknown = undefined): URL | null {
    requireArguments('URL.parse', arguments.length, 1);
    const parts = parseUrl(url, base);
    return parts === undefined ? null : newUrl(ObjectCreate(URL.prototype) as URL, parts);
  }
  get href(): string {
    return urlState(this).parts[0];
  }
  set href(value: unknown) {
    setUrlPart(this, 'href', value, true);
  }
  get origin(): string {
    return urlState(this).parts[1];
  }
  get protocol(): string {
    return urlState(this).parts[2];
  }
  set protocol(value: unknown) {
    setUrlPart(this, 'protocol', value, true);
  }
  get username(): string {
    return urlState(this).parts[3];
  }
  set username(value: unknown) {
    setUrlPart(this, 'username', value, true);
  }
  get password(): string {
    return urlState(this).parts[4];
  }
  set password(value: unknown) {
    setUrlPart(this, 'password', value, true);
  }
  get host(): string {
    return urlState(this).parts[5];
  }
  set host(value: unknown) {
    setUrlPart(this, 'host', value, true);
  }
  get hostname(): string {
    return urlState(this).parts[6];
  }
  set hostname(value: unknown) {
    setUrlPart(this, 'hostname', value, true);
  }
  get port(): string {
    return urlState(this).parts[7];
  }
  set port(value: unknown) {
    setUrlPart(this, 'port', value, true);
  }
  get pathname(): string {
    return urlState(this).parts[8];
  }
  set pathname(value: unknown) {
    setUrlPart(this, 'pathname', value, true);
  }
  get search(): string {
    return urlState(this).parts[9];
  }
  set search(value: unknown) {
    setUrlPart(this, 'search', value, true);
  }
  get searchParams(): URLSearchParams {
    return urlState(this).params;
  }
  get hash(): string {
    return urlState(this).parts[10];
  }
  set hash(value: unknown) {
    setUrlPart(this, 'hash', value, true);
  }
  toString(): string {
    return urlState(this).parts[0];
  }
  toJSON(): string {
    return urlState(this).parts[0];
  }
}
tagPrototype(URL, 'URL');
installGlobal('URL', URL);

setWebInspector(inspectWebGlobal);

/** How console shows a URL or URLSearchParams (their state is not in own properties); undefined for anything else. */
function inspectWebGlobal(value: object, show: (item: unknown) => string): string | undefined {
  const url = weakMapGet(urlStates, value) as UrlState | undefined;
  if (url !== undefined) return 'URL { href: ' + show(url.parts[0]) + ' }';
  const params = weakMapGet(paramsStates, value) as ParamsState | undefined;
  if (params === undefined) return undefined;
  const items: string[] = [];
  for (let index = 0; index < params.list.length && index < 100; index++)
    append(items, show(params.list[index][0]) + ' => ' + show(params.list[index][1]));
  return 'URLSearchParams { ' + arrayJoin(items, ', ') + ' }';
}
