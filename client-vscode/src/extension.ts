/**
 * heredoc-lsp for VS Code: starts the bundled language server with a discovered Python, keeps it in step with
 * settings and workspace trust, shows its state in the status bar, and offers the agent loop's commands (agent.ts).
 */
import * as vscode from 'vscode';
import { CancellationToken, LanguageClient, LanguageClientOptions, ResponseError, State } from 'vscode-languageclient/node';

import {
  AGENT_COMMANDS,
  AgentDeps,
  confirmedEditUris,
  copyOutbox,
  newSession,
  pasteReply,
  previewReply,
  undoReply,
} from './agent';
import { CLIENT_ID, CLIENT_NAME, COMMAND_RESTART, COMMAND_SHOW_OUTPUT, LANGUAGE_IDS, SECTION } from './constants';
import { discoverPython, findOnPath, probePython } from './python';
import { activeInterpreter, onInterpreterChange } from './pythonExtension';
import { serverLaunch } from './server';
import { explicitValue, RESTART_SETTING_KEYS, serverSettings } from './settings';
import { ServerState, statusView } from './status';
import { executeCommandGate } from './trust';

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  manager = new ServerManager(context, output);
  context.subscriptions.push(
    output,
    manager,
    vscode.commands.registerCommand(COMMAND_RESTART, () => manager?.restart('restart requested')),
    vscode.commands.registerCommand(COMMAND_SHOW_OUTPUT, () => output.show(true)),
    ...registerAgentCommands(agentDeps(manager), output),
  );
  await manager.start();
}

function registerAgentCommands(deps: AgentDeps, output: vscode.LogOutputChannel): vscode.Disposable[] {
  const commands: [string, (deps: AgentDeps) => Promise<unknown>][] = [
    [AGENT_COMMANDS.newSession.id, newSession],
    [AGENT_COMMANDS.copyOutbox.id, copyOutbox],
    [AGENT_COMMANDS.pasteReply.id, pasteReply],
    [AGENT_COMMANDS.previewReply.id, previewReply],
    [AGENT_COMMANDS.undoReply.id, undoReply],
  ];
  return commands.map(([id, run]) =>
    vscode.commands.registerCommand(id, async () => {
      try {
        return await run(deps);
      } catch (err) {
        const message = `heredoc-lsp: ${err instanceof Error ? err.message : String(err)}`;
        output.error(`${id}: ${message}`);
        void vscode.window.showErrorMessage(message);
        return undefined;
      }
    }),
  );
}

/** The file URI of the active editor when it lies in a workspace folder, else the first folder's URI. */
function sessionUri(): string | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file' && vscode.workspace.getWorkspaceFolder(active)) {
    return active.toString();
  }
  return vscode.workspace.workspaceFolders?.[0]?.uri.toString();
}

function agentDeps(server: ServerManager): AgentDeps {
  return {
    execute: (command, arg) => server.executeServerCommand(command, arg),
    sessionUri,
    activeUri: () => vscode.window.activeTextEditor?.document.uri.toString(),
    askTask: async (prompt) =>
      vscode.window.showInputBox({
        title: 'Heredoc: New agent session',
        prompt,
        placeHolder: 'e.g. Add a --verbose flag to the CLI and test it',
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() === '' ? 'Describe the task' : undefined),
      }),
    readClipboard: async () => vscode.env.clipboard.readText(),
    writeClipboard: async (text) => vscode.env.clipboard.writeText(text),
    info: (message) => void vscode.window.showInformationMessage(message),
    warn: (message) => void vscode.window.showWarningMessage(message),
    status: (message) => {
      vscode.window.setStatusBarMessage(message, 10000);
    },
  };
}

/** Saves the open documents an accepted reply preview changed (VS Code leaves a WorkspaceEdit's text unsaved), so
 * the server finds the reply's files on disk when it gets the answer. */
async function saveConfirmedEdit(uris: string[], output: vscode.LogOutputChannel): Promise<void> {
  const wanted = new Set(uris.map((u) => vscode.Uri.parse(u).toString()));
  for (const doc of vscode.workspace.textDocuments) {
    if (wanted.has(doc.uri.toString()) && doc.isDirty && !(await doc.save())) {
      output.warn(`could not save ${doc.uri.fsPath} after the reply preview`);
    }
  }
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}

function workspaceFolderPath(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly status: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private state: ServerState = 'stopped';
  private python: string | undefined;
  private detail: string | undefined;
  /** Starts and stops run one after the other. */
  private queue: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.status = vscode.window.createStatusBarItem('heredocLsp.status', vscode.StatusBarAlignment.Left, 0);
    this.status.name = 'heredoc-lsp';
    this.status.command = COMMAND_SHOW_OUTPUT;
    this.disposables.push(
      this.status,
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      // Trust granted: the server must now offer run lenses; a new process reads the new trust at initialize.
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.restart('workspace trusted')),
    );
    void onInterpreterChange(() => {
      if (!this.settingValue('python.path')) {
        this.scheduleRestart('the Python extension changed the interpreter');
      }
    }).then((d) => d && this.disposables.push(d));
    this.render();
  }

  /** Runs a server command once the server has started (through the client, so the trust gate applies). */
  async executeServerCommand(command: string, arg: Record<string, string>): Promise<unknown> {
    await this.queue;
    if (this.client?.state !== State.Running) {
      throw new Error(`the language server is not running (${this.state}); see the status bar item`);
    }
    return vscode.commands.executeCommand(command, arg);
  }

  private settingValue(key: string): unknown {
    return explicitValue(vscode.workspace.getConfiguration(SECTION), key, vscode.workspace.isTrusted);
  }

  private settings(): Record<string, unknown> {
    return serverSettings(vscode.workspace.getConfiguration(SECTION), vscode.workspace.isTrusted);
  }

  private setState(state: ServerState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    this.render();
  }

  private render(): void {
    const view = statusView({
      state: this.state,
      trusted: vscode.workspace.isTrusted,
      python: this.python,
      detail: this.detail,
    });
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    this.status.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
    const language = vscode.window.activeTextEditor?.document.languageId;
    const ours = language !== undefined && (LANGUAGE_IDS as readonly string[]).includes(language);
    if (ours || this.state === 'failed' || this.state === 'no-python') {
      this.status.show();
    } else {
      this.status.hide();
    }
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) {
      return;
    }
    if (RESTART_SETTING_KEYS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) {
      this.scheduleRestart('settings changed');
      return;
    }
    const client = this.client;
    if (client && client.state === State.Running) {
      void client
        .sendNotification('workspace/didChangeConfiguration', { settings: { [SECTION]: this.settings() } })
        .catch((err: unknown) => this.output.error(`could not send the new settings: ${String(err)}`));
    }
  }

  private scheduleRestart(reason: string): void {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.restart(reason);
    }, 500);
  }

  start(): Promise<void> {
    this.queue = this.queue.then(() => this.doStart());
    return this.queue;
  }

  stop(): Promise<void> {
    this.queue = this.queue.then(() => this.doStop());
    return this.queue;
  }

  restart(reason: string): Promise<void> {
    this.output.info(`restarting the server: ${reason}`);
    this.queue = this.queue.then(async () => {
      await this.doStop();
      await this.doStart();
    });
    return this.queue;
  }

  private async doStart(): Promise<void> {
    this.setState('starting');
    const setting = this.settingValue('python.path');
    const found = await discoverPython({
      settingValue: typeof setting === 'string' ? setting : undefined,
      workspaceFolder: workspaceFolderPath(),
      pythonExtensionInterpreter: () => activeInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri),
      findOnPath: (name) => findOnPath(name),
      probe: (command) => probePython(command),
    });
    if (!found.ok) {
      this.python = undefined;
      this.output.error(found.message);
      this.setState('no-python', found.message);
      void vscode.window.showErrorMessage(found.message, 'Open Settings', 'Show Output').then((choice) => {
        if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.python.path`);
        } else if (choice === 'Show Output') {
          this.output.show(true);
        }
      });
      return;
    }
    this.python = `Python ${found.version} (${found.command})`;
    this.output.info(`using ${this.python}, found through ${found.source}`);

    const libs = this.context.asAbsolutePath('bundled/libs');
    const launch = serverLaunch(found.command, libs, process.env);
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGE_IDS.flatMap((language) => [
        { scheme: 'file', language },
        { scheme: 'untitled', language },
      ]),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: this.settings(),
      // vscode-languageclient >= 10 pulls diagnostics on open only unless told otherwise.
      diagnosticPullOptions: { onChange: true, onSave: true },
      middleware: {
        executeCommand: executeCommandGate({
          isTrusted: () => vscode.workspace.isTrusted,
          warn: (message) => void vscode.window.showWarningMessage(message),
        }),
        workspace: {
          // A reply preview (an edit whose change annotations need confirmation) is saved once accepted.
          handleApplyEdit: async (params, next) => {
            const result = await next(params, CancellationToken.None);
            if (!(result instanceof ResponseError) && result.applied) {
              await saveConfirmedEdit(confirmedEditUris(params.edit), this.output);
            }
            return result;
          },
          // Answer the server's workspace/configuration with the settings the user set (plus trust), not with
          // every declared default, which would override the project's heredoc-lsp.toml.
          configuration: async (params, token, next) => {
            const answer = await next(params, token);
            if (!Array.isArray(answer)) {
              return answer;
            }
            return params.items.map((item, i) => (item.section === SECTION ? this.settings() : answer[i]));
          },
        },
      },
    };
    const client = new LanguageClient(
      CLIENT_ID,
      CLIENT_NAME,
      { command: launch.command, args: launch.args, options: { cwd: launch.cwd, env: launch.env } },
      clientOptions,
    );
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      } else if (this.state !== 'failed') {
        this.setState('stopped');
      }
    });
    this.client = client;
    try {
      await client.start();
      this.setState('running');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.error(`the server did not start: ${message}`);
      this.setState('failed', message);
      void vscode.window
        .showErrorMessage(`heredoc-lsp: the language server did not start (${message}).`, 'Show Output')
        .then((choice) => choice && this.output.show(true));
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(3000);
      } catch (err) {
        this.output.warn(`stopping the server: ${String(err)}`);
      }
    }
    this.setState('stopped');
  }

  dispose(): void {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
