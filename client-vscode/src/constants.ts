/** Names shared by the extension's modules. */

/** The settings section; the server reads the same name (SETTINGS_SECTION in heredoc_lsp.config.settings). */
export const SECTION = 'heredocLsp';

/** The client id: vscode-languageclient reads `${CLIENT_ID}.trace.server` for message tracing. */
export const CLIENT_ID = 'heredocLsp';
export const CLIENT_NAME = 'heredoc-lsp';

export const LANGUAGE_IDS = ['cli-script', 'agent-inbox', 'agent-outbox'] as const;

/** Commands of the extension itself. The server's commands (heredoc-lsp.*) are registered by the client. */
export const COMMAND_RESTART = 'heredocLsp.restartServer';
export const COMMAND_SHOW_OUTPUT = 'heredocLsp.showOutput';

/** The oldest Python the bundled server runs on. */
export const MIN_PYTHON: readonly [number, number] = [3, 10];
