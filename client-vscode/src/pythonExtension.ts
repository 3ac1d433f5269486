/**
 * The Python extension (ms-python.python), when installed: its active interpreter and its change event.
 * Used through its public API object (environments.getActiveEnvironmentPath / resolveEnvironment, or the older
 * settings.getExecutionDetails), without a compile-time dependency on the extension.
 */
import * as vscode from 'vscode';

export const PYTHON_EXTENSION_ID = 'ms-python.python';

interface EnvironmentPath {
  id?: string;
  path?: string;
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): EnvironmentPath | undefined;
    resolveEnvironment?(env: EnvironmentPath | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

async function pythonApi(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  if (extension.isActive) {
    return extension.exports;
  }
  return withTimeout(extension.activate(), 15000);
}

/** The interpreter the Python extension has selected for `resource`, or undefined. */
export async function activeInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const api = await pythonApi();
  if (api === undefined) {
    return undefined;
  }
  const environments = api.environments;
  const envPath = environments?.getActiveEnvironmentPath?.(resource);
  if (envPath && environments?.resolveEnvironment) {
    const env = await withTimeout(environments.resolveEnvironment(envPath), 15000);
    const executable = env?.executable?.uri?.fsPath;
    if (executable) {
      return executable;
    }
  }
  if (envPath?.path) {
    return envPath.path;
  }
  return api.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
}

/** Subscribe to interpreter changes in the Python extension (if it is installed and already active). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  const api = await pythonApi();
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}
