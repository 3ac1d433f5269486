import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { activeInterpreter, onInterpreterChange, PYTHON_EXTENSION_ID } from '../src/pythonExtension';
import { serverLaunch } from '../src/server';
import { statusView } from '../src/status';
import { ALLOWED_WHEN_UNTRUSTED, executeCommandGate, UNTRUSTED_RUN_MESSAGE } from '../src/trust';
import { EventEmitter, state, Uri } from './vscodeMock';

describe('executeCommandGate', () => {
  const run = (trusted: boolean, command: string) => {
    const warnings: string[] = [];
    const calls: [string, unknown[]][] = [];
    const gate = executeCommandGate({ isTrusted: () => trusted, warn: (m) => warnings.push(m) });
    const result = gate(command, [{ uri: 'file:///w/a.cli', version: 3, line: 0 }], (c, a) => {
      calls.push([c, a]);
      return { status: 'completed' };
    });
    return { result, warnings, calls };
  };

  it('refuses every run command in Restricted Mode without reaching the server', () => {
    for (const command of ['heredoc-lsp.runCommand', 'heredoc-lsp.runScript', 'heredoc-lsp.applyReply', 'heredoc-lsp.runBlock', 'heredoc-lsp.someFutureRun']) {
      const { result, warnings, calls } = run(false, command);
      assert.deepEqual(result, { status: 'refused', message: UNTRUSTED_RUN_MESSAGE }, command);
      assert.deepEqual(warnings, [UNTRUSTED_RUN_MESSAGE]);
      assert.deepEqual(calls, []);
    }
  });

  it('lets cancel and show-output through in Restricted Mode, and everything when trusted', () => {
    for (const command of ALLOWED_WHEN_UNTRUSTED) {
      assert.deepEqual(run(false, command).result, { status: 'completed' });
    }
    const { result, warnings, calls } = run(true, 'heredoc-lsp.runCommand');
    assert.deepEqual(result, { status: 'completed' });
    assert.deepEqual(warnings, []);
    assert.deepEqual(calls, [['heredoc-lsp.runCommand', [{ uri: 'file:///w/a.cli', version: 3, line: 0 }]]]);
  });
});

describe('serverLaunch', () => {
  it('runs the bundled package from the bundle directory with only the bundle on PYTHONPATH', () => {
    const launch = serverLaunch('/usr/bin/python3', '/ext/bundled/libs', { PATH: '/usr/bin', PYTHONPATH: '/home/u/evil', HOME: '/home/u', UNSET: undefined });
    assert.equal(launch.command, '/usr/bin/python3');
    assert.deepEqual(launch.args, ['-m', 'heredoc_lsp', 'lsp', '--log-level', 'info']);
    assert.equal(launch.cwd, '/ext/bundled/libs');
    assert.deepEqual(launch.env, {
      PATH: '/usr/bin',
      HOME: '/home/u',
      PYTHONPATH: '/ext/bundled/libs',
      PYTHONNOUSERSITE: '1',
      PYTHONUNBUFFERED: '1',
      PYTHONIOENCODING: 'utf-8',
      PYTHONSAFEPATH: '1',
    });
  });
});

describe('statusView', () => {
  it('says what state the server is in', () => {
    assert.deepEqual(statusView({ state: 'running', trusted: true, python: 'Python 3.11.2 (/usr/bin/python3)' }), {
      text: '$(check) heredoc-lsp',
      tooltip: 'heredoc-lsp: the language server is running\nPython 3.11.2 (/usr/bin/python3)\nClick to show the output',
      background: undefined,
    });
    const restricted = statusView({ state: 'running', trusted: false });
    assert.equal(restricted.text, '$(shield) heredoc-lsp');
    assert.match(restricted.tooltip, /Restricted Mode: checks only, running is off/);
    assert.equal(statusView({ state: 'starting', trusted: true }).text, '$(loading~spin) heredoc-lsp');
    const failed = statusView({ state: 'failed', trusted: true, detail: 'exit code 1' });
    assert.equal(failed.text, '$(error) heredoc-lsp');
    assert.equal(failed.background, 'statusBarItem.errorBackground');
    assert.match(failed.tooltip, /exit code 1/);
    assert.equal(statusView({ state: 'no-python', trusted: true }).text, '$(error) heredoc-lsp: no Python');
    assert.equal(statusView({ state: 'stopped', trusted: true }).background, 'statusBarItem.warningBackground');
  });
});

describe('Python extension interpreter', () => {
  it('is undefined when the extension is not installed', async () => {
    state.extensions = {};
    assert.equal(await activeInterpreter(undefined), undefined);
    assert.equal(await onInterpreterChange(() => undefined), undefined);
  });

  it('resolves the active environment to its executable, activating the extension first', async () => {
    const changed = new EventEmitter<unknown>();
    let activated = false;
    const api = {
      environments: {
        getActiveEnvironmentPath: (resource?: Uri) => ({ id: 'venv', path: `${resource?.fsPath}/.venv` }),
        resolveEnvironment: async (env: { path: string }) => ({ executable: { uri: Uri.file(`${env.path}/bin/python`) } }),
        onDidChangeActiveEnvironmentPath: changed.event,
      },
    };
    state.extensions = {
      [PYTHON_EXTENSION_ID]: {
        isActive: false,
        exports: undefined,
        activate: async () => {
          activated = true;
          return api;
        },
      },
    };
    assert.equal(await activeInterpreter(Uri.file('/w') as unknown as import('vscode').Uri), '/w/.venv/bin/python');
    assert.ok(activated);
    let calls = 0;
    const sub = await onInterpreterChange(() => calls++);
    changed.fire({});
    assert.equal(calls, 1);
    sub?.dispose();
    changed.fire({});
    assert.equal(calls, 1);
  });

  it('falls back to the environment path and to the older execution-details API', async () => {
    state.extensions = {
      [PYTHON_EXTENSION_ID]: {
        isActive: true,
        exports: { environments: { getActiveEnvironmentPath: () => ({ path: '/usr/bin/python3.12' }), resolveEnvironment: async () => undefined } },
        activate: async () => undefined,
      },
    };
    assert.equal(await activeInterpreter(undefined), '/usr/bin/python3.12');
    state.extensions = {
      [PYTHON_EXTENSION_ID]: {
        isActive: true,
        exports: { settings: { getExecutionDetails: () => ({ execCommand: ['/opt/conda/bin/python', '-X'] }) } },
        activate: async () => undefined,
      },
    };
    assert.equal(await activeInterpreter(undefined), '/opt/conda/bin/python');
  });
});
