import type { SdkConfig } from '../../config/index.js';
import { looksLikeCredential, namesSecret, secretsOfUrl, type Secret } from '../../core/index.js';

/** Values shorter than this are never taken for secrets (`true`, `v3`): redacting them would garble everything. */
const MIN_SECRET_LENGTH = 4;

/**
 * The secrets of one SDK's configuration: the values among its constructor arguments (`create.args`,
 * at any depth) under a name that says so (`auth`, `token`, `apiKey`, `password`) or that look like a
 * credential, and the credentials and query values of URL-valued ones. They stay on the host: only the
 * backend passes them to the SDK, and the redactor cuts them out of everything else.
 */
export function secretsOfSdk(name: string, sdk: SdkConfig): Secret[] {
  const secrets: Secret[] = [];
  const visit = (value: unknown, where: string, key: string): void => {
    if (typeof value === 'string') {
      const label = `sdk ${name} ${where}`;
      if (value.length >= MIN_SECRET_LENGTH && (namesSecret(key) || looksLikeCredential(value)))
        secrets.push({ value, label, strength: 'strong' });
      else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) secrets.push(...secretsOfUrl(value, label));
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${where}[${index}]`, key));
    else if (typeof value === 'object' && value !== null) {
      for (const [child, item] of Object.entries(value)) visit(item, `${where}.${child}`, child);
    }
  };
  visit(sdk.create?.args ?? [], 'create.args', '');
  return secrets;
}
