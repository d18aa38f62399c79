// ---------------------------------------------------------------- DOMException
const DOM_EXCEPTION_CODES: Record<string, number | null | undefined> = {
  __proto__: null,
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};
class DOMException extends ErrorConstructor {
  constructor(message: unknown = '', name: unknown = 'Error') {
    super(StringConstructor(message));
    const text = StringConstructor(name);
    defineProperty(this, 'name', { value: text, writable: true, enumerable: false, configurable: true });
    const code = DOM_EXCEPTION_CODES[text];
    defineProperty(this, 'code', { value: code === undefined ? 0 : code, writable: true, enumerable: false, configurable: true });
  }
}
installGlobal('DOMException', DOMException);
