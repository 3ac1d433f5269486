/**
 * Finding a Python interpreter for the bundled server, in order: the setting `heredocLsp.python.path`, the Python
 * extension's active interpreter (when that extension is installed), then `python3` (and `python`) on PATH. Each
 * candidate is probed (run, version read); the first that is Python >= 3.10 wins. When none works the result
 * lists every candidate with the reason it was rejected, so the message can tell the user what to fix.
 *
 * The logic takes its effects as parameters so that the unit tests can drive it without VS Code or a real Python.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { MIN_PYTHON } from './constants';

export type CandidateSource = 'setting' | 'python-extension' | 'path';

export interface Candidate {
  source: CandidateSource;
  /** What the user would recognise: the setting's text, the interpreter path, or the PATH name. */
  label: string;
  /** The executable to run, or undefined when the candidate could not be resolved to one. */
  command: string | undefined;
  /** Why it could not be resolved (when command is undefined). */
  unresolved?: string;
}

export type Probe = { ok: true; version: string } | { ok: false; reason: string };

export interface DiscoveryDeps {
  /** `heredocLsp.python.path` as set by the user (already trust-filtered), or undefined/empty. */
  settingValue: string | undefined;
  /** The folder `${workspaceFolder}` stands for, if any. */
  workspaceFolder: string | undefined;
  /** The Python extension's active interpreter, or undefined (not installed, none selected, failed). */
  pythonExtensionInterpreter(): Promise<string | undefined>;
  /** An executable called `name` on PATH, or undefined. */
  findOnPath(name: string): string | undefined;
  /** Run the interpreter and report its version, or why it cannot be used. */
  probe(command: string): Promise<Probe>;
}

export interface Found {
  ok: true;
  command: string;
  version: string;
  source: CandidateSource;
}

export interface NotFound {
  ok: false;
  tried: { candidate: Candidate; reason: string }[];
  message: string;
}

const SOURCE_TEXT: Record<CandidateSource, string> = {
  setting: 'setting heredocLsp.python.path',
  'python-extension': "Python extension's interpreter",
  path: 'PATH',
};

/** `~`, `${workspaceFolder}`, `${userHome}` and `${env:NAME}` expanded; a bare name is looked up on PATH. */
export function resolveSetting(value: string, deps: Pick<DiscoveryDeps, 'workspaceFolder' | 'findOnPath'>): Candidate {
  const label = value;
  let text = value.trim();
  if (text.includes('${workspaceFolder}')) {
    if (deps.workspaceFolder === undefined) {
      return { source: 'setting', label, command: undefined, unresolved: '${workspaceFolder} used outside a workspace' };
    }
    text = text.split('${workspaceFolder}').join(deps.workspaceFolder);
  }
  text = text.split('${userHome}').join(os.homedir());
  text = text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => process.env[name] ?? '');
  if (text === '~' || text.startsWith('~/')) {
    text = path.join(os.homedir(), text.slice(1));
  }
  if (!text.includes('/') && !text.includes('\\')) {
    const onPath = deps.findOnPath(text);
    return onPath === undefined
      ? { source: 'setting', label, command: undefined, unresolved: `'${text}' is not on PATH` }
      : { source: 'setting', label, command: onPath };
  }
  return { source: 'setting', label, command: text };
}

/** The first working interpreter, or every candidate with its reason. */
export async function discoverPython(deps: DiscoveryDeps): Promise<Found | NotFound> {
  const tried: { candidate: Candidate; reason: string }[] = [];
  const seen = new Set<string>();

  const attempt = async (candidate: Candidate): Promise<Found | undefined> => {
    if (candidate.command === undefined) {
      tried.push({ candidate, reason: candidate.unresolved ?? 'not found' });
      return undefined;
    }
    if (seen.has(candidate.command)) {
      return undefined;
    }
    seen.add(candidate.command);
    const probe = await deps.probe(candidate.command);
    if (probe.ok) {
      return { ok: true, command: candidate.command, version: probe.version, source: candidate.source };
    }
    tried.push({ candidate, reason: probe.reason });
    return undefined;
  };

  const setting = deps.settingValue?.trim();
  if (setting) {
    const found = await attempt(resolveSetting(setting, deps));
    if (found) {
      return found;
    }
  }
  let fromExtension: string | undefined;
  try {
    fromExtension = await deps.pythonExtensionInterpreter();
  } catch {
    fromExtension = undefined;
  }
  if (fromExtension) {
    const found = await attempt({ source: 'python-extension', label: fromExtension, command: fromExtension });
    if (found) {
      return found;
    }
  }
  for (const name of ['python3', 'python']) {
    const onPath = deps.findOnPath(name);
    if (onPath === undefined) {
      if (name === 'python3') {
        tried.push({ candidate: { source: 'path', label: name, command: undefined }, reason: 'not on PATH' });
      }
      continue;
    }
    const found = await attempt({ source: 'path', label: name, command: onPath });
    if (found) {
      return found;
    }
  }
  return { ok: false, tried, message: notFoundMessage(tried) };
}

export function notFoundMessage(tried: { candidate: Candidate; reason: string }[]): string {
  const need = `Python ${MIN_PYTHON.join('.')} or newer`;
  const parts = tried.map(({ candidate, reason }) => `${SOURCE_TEXT[candidate.source]} '${candidate.label}': ${reason}`);
  const list = parts.length > 0 ? ` Tried: ${parts.join('; ')}.` : '';
  return `heredoc-lsp needs ${need} to run its language server.${list} Install Python ${MIN_PYTHON.join('.')}+, or set heredocLsp.python.path to its interpreter.`;
}

/** Parse `3.11.4` and compare with MIN_PYTHON. */
export function checkVersion(text: string): Probe {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) {
    return { ok: false, reason: `could not read its version from '${text.trim().slice(0, 80)}'` };
  }
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const version = m[0];
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return { ok: false, reason: `Python ${version} is too old (needs ${MIN_PYTHON.join('.')}+)` };
  }
  return { ok: true, version };
}

const VERSION_SCRIPT = 'import sys; print("%d.%d.%d" % sys.version_info[:3])';

/** Run `command -c ...` and check the version it prints (10 s limit). */
export function probePython(command: string, timeoutMs = 10000): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(command, ['-c', VERSION_SCRIPT], { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          resolve({ ok: false, reason: 'no such file' });
        } else if (code === 'EACCES') {
          resolve({ ok: false, reason: 'not executable' });
        } else if (error.killed) {
          resolve({ ok: false, reason: `did not answer within ${timeoutMs / 1000} s` });
        } else {
          const detail = String(stderr || error.message).trim().split('\n').pop() ?? '';
          resolve({ ok: false, reason: `failed to run (${detail.slice(0, 120)})` });
        }
        return;
      }
      resolve(checkVersion(String(stdout)));
    });
  });
}

/** An executable file called `name` in one of PATH's directories. */
export function findOnPath(name: string, envPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) {
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}
