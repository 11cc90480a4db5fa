/**
 * The environment of the agent's shell commands, without the product's secrets. A command the model
 * wrote can print its environment; whatever it prints lands in a tool result, on disk in the
 * transcript and in the next request. So the variables the product reads its key from are removed,
 * and so is any variable whose value contains a key the product holds (the key from secret storage).
 */

/** Variables the product (or the `openai` client it uses) reads API keys from. */
export const SECRET_ENV_NAMES: readonly string[] = [
  'CONTEXT_KEEPER_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_ADMIN_KEY',
  'AZURE_OPENAI_API_KEY',
  'OPENAI_ORG_ID',
  'OPENAI_PROJECT_ID',
];

/**
 * A copy of `base` without {@link SECRET_ENV_NAMES} and without any variable whose value contains one
 * of `secrets` (values shorter than 8 characters are ignored: too short to be a key, too likely to hit
 * ordinary values).
 *
 * @param base usually `process.env`.
 * @param secrets keys the product holds (for example the one from secret storage).
 * @param extra variables to set on top (after removal).
 */
export function childEnvironment(
  base: NodeJS.ProcessEnv,
  secrets: readonly string[] = [],
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const names = new Set(SECRET_ENV_NAMES.map((n) => n.toUpperCase()));
  const values = secrets.filter((s) => typeof s === 'string' && s.length >= 8);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (names.has(name.toUpperCase())) continue;
    if (values.some((secret) => value.includes(secret))) continue;
    out[name] = value;
  }
  return { ...out, ...extra };
}
