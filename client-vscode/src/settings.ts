/**
 * The server's settings as the extension sends them (initializationOptions, workspace/configuration answers and
 * didChangeConfiguration pushes).
 *
 * Only values the user actually set are sent. VS Code fills every declared setting with its default, and the
 * server applies editor settings on top of heredoc-lsp.toml: sending untouched defaults would silently override
 * the project's file. In an untrusted workspace the workspace-level values of restricted settings (what runs and
 * how) are ignored, as VS Code does for `get()`.
 *
 * The server treats these settings as the user's own, so it lets them loosen the safety settings (sandbox,
 * network, confirmation, environment, timeout, runner) that a workspace may only make stricter (docs/configuration.md). A
 * workspace's `.vscode/settings.json` is as much the repository's as its heredoc-lsp.toml: for those keys only the
 * user-level value (`inspect(key).globalValue`) is ever sent, trusted workspace or not.
 */

/** Settings keys the server understands (see heredoc_lsp/config/settings.py and heredoc_lsp/lsp/settings.py). */
export const SERVER_SETTING_KEYS = [
  'compat',
  'cli.output',
  'script.runner',
  'executor.timeoutS',
  'executor.sandbox',
  'executor.allowNetwork',
  'executor.maxOutputChars',
  'executor.confirm',
  'executor.env',
  'commands',
  'diagnosticMode',
] as const;

/** Safety settings: only the user-level value is read, never a workspace or folder value. The server's safety
 * settings (heredoc_lsp/config/model.py SAFETY_KEYS, in settings spelling) and every setting that names a program
 * to execute: `python.path` starts the language server outside any sandbox, so a `.vscode/settings.json` written by
 * a command or a cloned repository must never choose it (tests/vscode/test_settings_parity.py keeps the lists equal). */
export const SAFETY_SETTING_KEYS: ReadonlySet<string> = new Set([
  'python.path',
  'script.runner',
  'executor.timeoutS',
  'executor.sandbox',
  'executor.allowNetwork',
  'executor.confirm',
  'executor.env',
]);

/** Settings that decide what runs and how: their workspace values are ignored while the workspace is untrusted. */
export const RESTRICTED_SETTING_KEYS: ReadonlySet<string> = new Set([
  'python.path',
  'script.runner',
  'executor.sandbox',
  'executor.allowNetwork',
  'executor.env',
  'executor.confirm',
]);

/** The subset of vscode.WorkspaceConfiguration.inspect()'s answer used here. */
export interface InspectedValue {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface SettingsSource {
  inspect(key: string): InspectedValue | undefined;
}

/** The value the user set for `key` (folder over workspace over user; only the user's for a safety setting), or
 * undefined when none is set. */
export function explicitValue(source: SettingsSource, key: string, trusted: boolean): unknown {
  const inspected = source.inspect(key);
  if (inspected === undefined) {
    return undefined;
  }
  if (SAFETY_SETTING_KEYS.has(key) || (!trusted && RESTRICTED_SETTING_KEYS.has(key))) {
    return inspected.globalValue;
  }
  return inspected.workspaceFolderValue ?? inspected.workspaceValue ?? inspected.globalValue;
}

/** Nested settings object for the server: `{executor: {timeoutS: 5}}` for `heredocLsp.executor.timeoutS = 5`. */
export function serverSettings(source: SettingsSource, trusted: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_SETTING_KEYS) {
    const value = explicitValue(source, key, trusted);
    if (value === undefined || value === null) {
      continue;
    }
    const parts = key.split('.');
    let target = out;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      if (typeof next !== 'object' || next === null) {
        target[part] = {};
      }
      target = target[part] as Record<string, unknown>;
    }
    target[parts[parts.length - 1]] = value;
  }
  out.trusted = trusted;
  return out;
}

/** Keys whose change needs a new server process (the interpreter, or options read only at initialize). */
export const RESTART_SETTING_KEYS = ['python.path', 'diagnosticMode'] as const;
