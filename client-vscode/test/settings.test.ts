import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import {
  InspectedValue,
  RESTRICTED_SETTING_KEYS,
  SAFETY_SETTING_KEYS,
  explicitValue,
  SERVER_SETTING_KEYS,
  serverSettings,
  SettingsSource,
} from '../src/settings';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const properties: Record<string, { default: unknown; scope?: string }> = manifest.contributes.configuration.properties;
/** Settings of the extension itself, not passed to the server. */
const EXTENSION_ONLY = new Set(['python.path', 'trace.server']);

function source(values: Record<string, InspectedValue>): SettingsSource {
  return { inspect: (key) => ({ ...(values[key] ?? {}) }) };
}

describe('serverSettings', () => {
  it('sends only what the user set, nested, plus the trust flag', () => {
    const s = source({
      'executor.timeoutS': { globalValue: 5 },
      'executor.sandbox': { globalValue: 'none' },
      compat: { workspaceFolderValue: 'arca-cli' },
      commands: { globalValue: { 'tracker note': { mode: 'multi', required: ['BODY'] } } },
      diagnosticMode: { globalValue: 'push' },
    });
    assert.deepEqual(serverSettings(s, true), {
      compat: 'arca-cli',
      executor: { timeoutS: 5, sandbox: 'none' },
      commands: { 'tracker note': { mode: 'multi', required: ['BODY'] } },
      diagnosticMode: 'push',
      trusted: true,
    });
  });

  it('sends nothing but trust when nothing is set (defaults stay with heredoc-lsp.toml)', () => {
    assert.deepEqual(serverSettings(source({}), true), { trusted: true });
    assert.deepEqual(serverSettings({ inspect: () => undefined }, false), { trusted: false });
  });

  it('prefers the folder value over the workspace value over the user value', () => {
    const s = source({ 'executor.maxOutputChars': { globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 } });
    assert.deepEqual(serverSettings(s, true), { executor: { maxOutputChars: 3 }, trusted: true });
    const t = source({ 'executor.maxOutputChars': { globalValue: 1, workspaceValue: 2 } });
    assert.deepEqual(serverSettings(t, true), { executor: { maxOutputChars: 2 }, trusted: true });
  });

  it('sends only the user-level value of the safety settings, even in a trusted workspace', () => {
    const s = source({
      'executor.sandbox': { globalValue: 'bwrap', workspaceValue: 'none' },
      'executor.confirm': { workspaceFolderValue: 'never' },
      'executor.env': { workspaceValue: ['GITHUB_TOKEN'] },
      'executor.allowNetwork': { workspaceValue: true },
      'executor.timeoutS': { globalValue: 10, workspaceValue: 600 },
      'script.runner': { workspaceFolderValue: ['/tmp/evil', '{command}'] },
    });
    for (const trusted of [true, false]) {
      assert.deepEqual(serverSettings(s, trusted), { executor: { sandbox: 'bwrap', timeoutS: 10 }, trusted });
    }
    assert.deepEqual(
      [...SAFETY_SETTING_KEYS].sort(),
      [
        'executor.allowNetwork',
        'executor.confirm',
        'executor.env',
        'executor.sandbox',
        'executor.timeoutS',
        'python.path',
        'script.runner',
      ],
    );
  });

  it('reads the interpreter that starts the server from the user level only, even in a trusted workspace', () => {
    const s = source({ 'python.path': { workspaceValue: '${workspaceFolder}/tools/python' } });
    for (const trusted of [true, false]) {
      assert.equal(explicitValue(s, 'python.path', trusted), undefined);
    }
    const user = source({ 'python.path': { globalValue: '/usr/bin/python3', workspaceFolderValue: './python' } });
    assert.equal(explicitValue(user, 'python.path', true), '/usr/bin/python3');
  });

  it('declares every safety setting with a scope a workspace cannot set', () => {
    for (const key of SAFETY_SETTING_KEYS) {
      assert.ok(['application', 'machine'].includes(properties[`heredocLsp.${key}`].scope ?? ''), key);
    }
  });

  it('ignores workspace values of restricted settings while untrusted, keeps the user values', () => {
    const s = source({
      'script.runner': { globalValue: ['/bin/bash', '-c', '{command}'], workspaceValue: ['/tmp/evil', '{command}'] },
      'executor.allowNetwork': { workspaceValue: true },
      'executor.env': { workspaceFolderValue: ['AWS_SECRET_ACCESS_KEY'] },
      'executor.maxOutputChars': { workspaceValue: 9 },
    });
    assert.deepEqual(serverSettings(s, false), {
      script: { runner: ['/bin/bash', '-c', '{command}'] },
      executor: { maxOutputChars: 9 },
      trusted: false,
    });
    assert.deepEqual(serverSettings(s, true), {
      script: { runner: ['/bin/bash', '-c', '{command}'] },
      executor: { maxOutputChars: 9 },
      trusted: true,
    });
  });

  it('skips null values', () => {
    assert.deepEqual(serverSettings(source({ compat: { globalValue: null } }), true), { trusted: true });
  });
});

describe('package.json agrees with the settings code', () => {
  it('declares exactly the server keys plus the extension-only ones', () => {
    const declared = Object.keys(properties).map((k) => k.replace(/^heredocLsp\./, ''));
    assert.deepEqual(declared.filter((k) => !EXTENSION_ONLY.has(k)).sort(), [...SERVER_SETTING_KEYS].sort());
    for (const key of EXTENSION_ONLY) {
      assert.ok(declared.includes(key), key);
    }
  });

  it('lists the restricted settings in untrustedWorkspaces.restrictedConfigurations', () => {
    const restricted: string[] = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.deepEqual(restricted.map((k) => k.replace(/^heredocLsp\./, '')).sort(), [...RESTRICTED_SETTING_KEYS].sort());
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('contributes the three languages with their grammars and language configurations', () => {
    const languages = manifest.contributes.languages.map((l: { id: string }) => l.id);
    assert.deepEqual(languages, ['cli-script', 'agent-inbox', 'agent-outbox']);
    for (const lang of manifest.contributes.languages) {
      assert.ok(fs.existsSync(path.join(__dirname, '..', '..', lang.configuration)), lang.configuration);
    }
    const grammars = manifest.contributes.grammars.map((g: { language: string; path: string }) => [g.language, g.path]);
    assert.deepEqual(grammars, [
      ['cli-script', './syntaxes/cli-script.tmLanguage.json'],
      ['agent-inbox', './syntaxes/agent-inbox.tmLanguage.json'],
      ['agent-outbox', './syntaxes/agent-outbox.tmLanguage.json'],
    ]);
    for (const [, grammarPath] of grammars) {
      // build-vsix.sh copies ../syntaxes here; the sources must exist.
      assert.ok(fs.existsSync(path.join(__dirname, '..', '..', '..', grammarPath)), grammarPath);
    }
  });
});
