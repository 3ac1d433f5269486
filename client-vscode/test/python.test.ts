import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';

import {
  checkVersion,
  DiscoveryDeps,
  discoverPython,
  findOnPath,
  notFoundMessage,
  Probe,
  probePython,
  resolveSetting,
} from '../src/python';

/** Deps where `probes` maps an executable to its probe answer; anything else is 'no such file'. */
function deps(overrides: Partial<DiscoveryDeps> & { probes?: Record<string, Probe>; onPath?: Record<string, string> }) {
  const probed: string[] = [];
  const d: DiscoveryDeps = {
    settingValue: undefined,
    workspaceFolder: '/ws',
    pythonExtensionInterpreter: async () => undefined,
    findOnPath: (name) => overrides.onPath?.[name],
    probe: async (command) => {
      probed.push(command);
      return overrides.probes?.[command] ?? { ok: false, reason: 'no such file' };
    },
    ...overrides,
  };
  return { d, probed };
}

const ok = (version: string): Probe => ({ ok: true, version });

describe('discoverPython', () => {
  it('uses the setting first', async () => {
    const { d, probed } = deps({
      settingValue: '/opt/py/bin/python3',
      pythonExtensionInterpreter: async () => '/ext/python',
      onPath: { python3: '/usr/bin/python3' },
      probes: { '/opt/py/bin/python3': ok('3.12.1'), '/ext/python': ok('3.11.0'), '/usr/bin/python3': ok('3.11.2') },
    });
    assert.deepEqual(await discoverPython(d), {
      ok: true,
      command: '/opt/py/bin/python3',
      version: '3.12.1',
      source: 'setting',
    });
    assert.deepEqual(probed, ['/opt/py/bin/python3']);
  });

  it("falls back to the Python extension's interpreter, then to python3 on PATH", async () => {
    const first = deps({
      settingValue: '/missing/python',
      pythonExtensionInterpreter: async () => '/ext/python',
      onPath: { python3: '/usr/bin/python3' },
      probes: { '/ext/python': ok('3.10.0'), '/usr/bin/python3': ok('3.11.2') },
    });
    assert.deepEqual(await discoverPython(first.d), {
      ok: true,
      command: '/ext/python',
      version: '3.10.0',
      source: 'python-extension',
    });
    assert.deepEqual(first.probed, ['/missing/python', '/ext/python']);

    const second = deps({
      pythonExtensionInterpreter: async () => '/ext/python38',
      onPath: { python3: '/usr/bin/python3' },
      probes: { '/ext/python38': { ok: false, reason: 'Python 3.8.10 is too old (needs 3.10+)' }, '/usr/bin/python3': ok('3.11.2') },
    });
    assert.deepEqual(await discoverPython(second.d), {
      ok: true,
      command: '/usr/bin/python3',
      version: '3.11.2',
      source: 'path',
    });
  });

  it('survives a Python extension that throws', async () => {
    const { d } = deps({
      pythonExtensionInterpreter: async () => {
        throw new Error('activation failed');
      },
      onPath: { python3: '/usr/bin/python3' },
      probes: { '/usr/bin/python3': ok('3.13.0') },
    });
    assert.equal((await discoverPython(d)).ok, true);
  });

  it('tries `python` when python3 is too old, and probes one executable once', async () => {
    const { d, probed } = deps({
      pythonExtensionInterpreter: async () => '/usr/bin/python3',
      onPath: { python3: '/usr/bin/python3', python: '/usr/local/bin/python' },
      probes: { '/usr/bin/python3': { ok: false, reason: 'Python 3.9.2 is too old (needs 3.10+)' }, '/usr/local/bin/python': ok('3.12.0') },
    });
    const found = await discoverPython(d);
    assert.equal(found.ok && found.command, '/usr/local/bin/python');
    assert.deepEqual(probed, ['/usr/bin/python3', '/usr/local/bin/python']);
  });

  it('explains every rejected candidate when none works', async () => {
    const { d } = deps({
      settingValue: 'python3.13',
      pythonExtensionInterpreter: async () => '/ext/python',
      onPath: {},
      probes: { '/ext/python': { ok: false, reason: 'Python 3.8.10 is too old (needs 3.10+)' } },
    });
    const result = await discoverPython(d);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(
      result.message,
      'heredoc-lsp needs Python 3.10 or newer to run its language server. Tried: ' +
        "setting heredocLsp.python.path 'python3.13': 'python3.13' is not on PATH; " +
        "Python extension's interpreter '/ext/python': Python 3.8.10 is too old (needs 3.10+); " +
        "PATH 'python3': not on PATH. " +
        'Install Python 3.10+, or set heredocLsp.python.path to its interpreter.',
    );
    assert.equal(result.tried.length, 3);
  });
});

describe('resolveSetting', () => {
  const lookup = { workspaceFolder: '/work/proj', findOnPath: (n: string) => (n === 'py3' ? '/usr/bin/py3' : undefined) };

  it('expands ~, ${workspaceFolder}, ${userHome} and ${env:NAME}', () => {
    assert.equal(resolveSetting('~/venv/bin/python', lookup).command, path.join(os.homedir(), 'venv/bin/python'));
    assert.equal(resolveSetting('${workspaceFolder}/.venv/bin/python', lookup).command, '/work/proj/.venv/bin/python');
    assert.equal(resolveSetting('${userHome}/py', lookup).command, path.join(os.homedir(), 'py'));
    process.env.HEREDOC_TEST_PY_DIR = '/opt/x';
    assert.equal(resolveSetting('${env:HEREDOC_TEST_PY_DIR}/python', lookup).command, '/opt/x/python');
  });

  it('looks a bare name up on PATH', () => {
    assert.deepEqual(resolveSetting('py3', lookup), { source: 'setting', label: 'py3', command: '/usr/bin/py3' });
    assert.deepEqual(resolveSetting('nope', lookup), {
      source: 'setting',
      label: 'nope',
      command: undefined,
      unresolved: "'nope' is not on PATH",
    });
  });

  it('refuses ${workspaceFolder} without a workspace', () => {
    const r = resolveSetting('${workspaceFolder}/py', { workspaceFolder: undefined, findOnPath: () => undefined });
    assert.equal(r.command, undefined);
    assert.equal(r.unresolved, '${workspaceFolder} used outside a workspace');
  });
});

describe('checkVersion', () => {
  it('accepts 3.10 and newer, rejects older and unreadable versions', () => {
    assert.deepEqual(checkVersion('3.10.0\n'), { ok: true, version: '3.10.0' });
    assert.deepEqual(checkVersion('3.13.1'), { ok: true, version: '3.13.1' });
    assert.deepEqual(checkVersion('4.0.0'), { ok: true, version: '4.0.0' });
    assert.deepEqual(checkVersion('3.9.18'), { ok: false, reason: 'Python 3.9.18 is too old (needs 3.10+)' });
    assert.deepEqual(checkVersion('2.7.18'), { ok: false, reason: 'Python 2.7.18 is too old (needs 3.10+)' });
    assert.deepEqual(checkVersion('hello'), { ok: false, reason: "could not read its version from 'hello'" });
  });
});

describe('probePython and findOnPath (real processes and files)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heredoc-lsp-py-'));
  const cleanup: string[] = [dir];
  after(() => cleanup.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const write = (name: string, body: string, mode = 0o755) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, body, { mode });
    return file;
  };

  it('reads the version of the real python3', async () => {
    const python3 = findOnPath('python3');
    assert.ok(python3, 'python3 must be on PATH for this test');
    const probe = await probePython(python3);
    assert.ok(probe.ok, JSON.stringify(probe));
    assert.match(probe.version, /^3\.\d+\.\d+$/);
  });

  it('reports an old interpreter, a missing file, a non-executable file, a crash and a hang', async () => {
    assert.deepEqual(await probePython(write('old-python', '#!/bin/sh\necho 3.8.10\n')), {
      ok: false,
      reason: 'Python 3.8.10 is too old (needs 3.10+)',
    });
    assert.deepEqual(await probePython(path.join(dir, 'missing')), { ok: false, reason: 'no such file' });
    assert.deepEqual(await probePython(write('plain-file', 'x', 0o644)), { ok: false, reason: 'not executable' });
    assert.deepEqual(await probePython(write('crash', '#!/bin/sh\necho "boom: bad interpreter" >&2\nexit 3\n')), {
      ok: false,
      reason: 'failed to run (boom: bad interpreter)',
    });
    assert.deepEqual(await probePython(write('hang', '#!/bin/sh\nexec sleep 30\n'), 300), {
      ok: false,
      reason: 'did not answer within 0.3 s',
    });
  });

  it('finds executables on a PATH string and skips directories and plain files', () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'heredoc-lsp-bin-'));
    fs.mkdirSync(path.join(bin, 'python3'));
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'heredoc-lsp-bin2-'));
    cleanup.push(bin, other);
    fs.writeFileSync(path.join(other, 'python3'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(other, 'python'), 'not executable', { mode: 0o644 });
    assert.equal(findOnPath('python3', [bin, other].join(path.delimiter)), path.join(other, 'python3'));
    assert.equal(findOnPath('python', [bin, other].join(path.delimiter)), undefined);
    assert.equal(findOnPath('python3', ''), undefined);
  });

  it('formats the message without candidates', () => {
    assert.equal(
      notFoundMessage([]),
      'heredoc-lsp needs Python 3.10 or newer to run its language server. Install Python 3.10+, or set heredocLsp.python.path to its interpreter.',
    );
  });
});
