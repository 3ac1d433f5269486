/**
 * The copy-paste agent loop in VS Code (docs/vscode.md, "The agent loop"): the palette commands that start a session,
 * put the outbox on the clipboard, paste the LLM's reply into the inbox, preview it and undo it. Each forwards to a
 * server command (docs/running.md); the server writes the files, shows them and explains its refusals, so these
 * functions only gather the arguments (the task, the clipboard, the document) and report what the server did.
 *
 * The editor is reached through {@link AgentDeps}, so the glue is tested without VS Code (test/agent.test.ts).
 */

/** The server's commands (heredoc_lsp.lsp.commands). */
export const SERVER_NEW_SESSION = 'heredoc-lsp.newSession';
export const SERVER_OUTBOX_TEXT = 'heredoc-lsp.outboxText';
export const SERVER_PASTE_REPLY = 'heredoc-lsp.pasteReply';
export const SERVER_PREVIEW_REPLY = 'heredoc-lsp.previewReply';
export const SERVER_UNDO_REPLY = 'heredoc-lsp.undoReply';

/** The extension's palette commands; package.json declares the same ids and titles (test/agent.test.ts). */
export const AGENT_COMMANDS = {
  newSession: { id: 'heredocLsp.newAgentSession', title: 'New agent session' },
  copyOutbox: { id: 'heredocLsp.copyOutbox', title: 'Copy outbox for the LLM' },
  pasteReply: { id: 'heredocLsp.pasteReply', title: 'Paste reply' },
  previewReply: { id: 'heredocLsp.previewReply', title: 'Preview reply' },
  undoReply: { id: 'heredocLsp.undoReply', title: 'Undo last reply' },
} as const;

/** The palette category of the agent commands: "Heredoc: New agent session". */
export const AGENT_CATEGORY = 'Heredoc';

export const TASK_PROMPT = 'The task for the LLM (it becomes the first outbox)';
export const NO_FOLDER_MESSAGE = 'heredoc-lsp: open a folder first; the agent session lives in it (inbox/, outbox/).';
export const NO_REPLY_MESSAGE = 'heredoc-lsp: open the inbox reply to preview first (Heredoc: Paste reply opens it).';

export interface AgentDeps {
  /** Runs a server command through the language client (so the Restricted Mode gate applies) and gives its answer. */
  execute(command: string, arg: Record<string, string>): Promise<unknown>;
  /** The active editor's file URI when it is inside a workspace folder, else the first folder's URI. */
  sessionUri(): string | undefined;
  /** The active editor's document URI. */
  activeUri(): string | undefined;
  /** Asks for the task; undefined when the input box was dismissed. */
  askTask(prompt: string): Promise<string | undefined>;
  readClipboard(): Promise<string>;
  writeClipboard(text: string): Promise<void>;
  /** An information message (a notification). */
  info(message: string): void;
  warn(message: string): void;
  /** A short-lived status bar message. */
  status(message: string): void;
}

/** The server's answer, as far as the glue reads it. */
export interface ServerAnswer {
  status?: string;
  message?: string;
  [key: string]: unknown;
}

function answer(value: unknown): ServerAnswer {
  return typeof value === 'object' && value !== null ? (value as ServerAnswer) : {};
}

/** The last path segment of a URI, decoded: `file:///w/outbox/5f3a9c1e_seq0001.txt` -> `5f3a9c1e_seq0001.txt`. */
export function fileName(uri: string): string {
  const last = uri.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() ?? uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

const COPY_OUTBOX_HINT = `${AGENT_CATEGORY}: ${AGENT_COMMANDS.copyOutbox.title}`;

/** "Heredoc: New agent session": the task from an input box -> newSession; the server writes and opens the outbox. */
export async function newSession(deps: AgentDeps): Promise<ServerAnswer | undefined> {
  const uri = deps.sessionUri();
  if (uri === undefined) {
    deps.warn(NO_FOLDER_MESSAGE);
    return undefined;
  }
  const task = await deps.askTask(TASK_PROMPT);
  if (task === undefined || task.trim() === '') {
    return undefined;
  }
  const result = answer(await deps.execute(SERVER_NEW_SESSION, { uri, task }));
  if (result.status === 'started') {
    // The server has said that the session started (and opened the outbox): only the next step here.
    deps.status(`Session ${String(result.session)}: next, ${COPY_OUTBOX_HINT}`);
  }
  return result;
}

/** "Heredoc: Copy outbox for the LLM": the session's newest outbox (outboxText) onto the clipboard. */
export async function copyOutbox(deps: AgentDeps): Promise<ServerAnswer | undefined> {
  const uri = deps.sessionUri();
  if (uri === undefined) {
    deps.warn(NO_FOLDER_MESSAGE);
    return undefined;
  }
  const result = answer(await deps.execute(SERVER_OUTBOX_TEXT, { uri }));
  if (result.status !== 'ok' || typeof result.text !== 'string') {
    return result; // refused: the server (or the trust gate) has shown why
  }
  await deps.writeClipboard(result.text);
  const chars = typeof result.chars === 'number' ? result.chars : [...result.text].length;
  const name = typeof result.outbox === 'string' ? fileName(result.outbox) : 'the outbox';
  const message = `Copied ${name} for the LLM (${chars} characters)`;
  deps.status(message);
  deps.info(message);
  return result;
}

/** "Heredoc: Paste reply": the clipboard -> pasteReply; the server writes the next inbox file and opens it, or
 * refuses (an empty clipboard, the prompt itself, a reply applied before) and writes nothing. */
export async function pasteReply(deps: AgentDeps): Promise<ServerAnswer | undefined> {
  const uri = deps.sessionUri();
  if (uri === undefined) {
    deps.warn(NO_FOLDER_MESSAGE);
    return undefined;
  }
  const text = await deps.readClipboard();
  const result = answer(await deps.execute(SERVER_PASTE_REPLY, { uri, text }));
  if (result.status === 'pasted' && typeof result.reply === 'string') {
    deps.status(`Pasted the reply into ${fileName(result.reply)}`);
  }
  return result;
}

/** "Heredoc: Preview reply": previewReply on the active inbox reply; the server's workspace/applyEdit opens VS Code's
 * refactoring preview (a checkbox per file), and accepting it applies the reply. */
export async function previewReply(deps: AgentDeps): Promise<ServerAnswer | undefined> {
  const uri = deps.activeUri();
  if (uri === undefined) {
    deps.warn(NO_REPLY_MESSAGE);
    return undefined;
  }
  const result = answer(await deps.execute(SERVER_PREVIEW_REPLY, { uri }));
  if (result.status === 'declined') {
    deps.status('Reply not applied: the preview was discarded');
  }
  return result;
}

/** "Heredoc: Undo last reply": undoReply on the agent workspace of the active file (the reply, or the outbox that
 * followed it) or of the folder; the server restores the files and shows them. */
export async function undoReply(deps: AgentDeps): Promise<ServerAnswer | undefined> {
  const uri = deps.sessionUri();
  if (uri === undefined) {
    deps.warn(NO_FOLDER_MESSAGE);
    return undefined;
  }
  return answer(await deps.execute(SERVER_UNDO_REPLY, { uri }));
}

/** The parts of an LSP WorkspaceEdit read by {@link confirmedEditUris}. */
export interface LspWorkspaceEdit {
  documentChanges?: readonly unknown[];
  changeAnnotations?: Record<string, { needsConfirmation?: boolean } | undefined>;
}

/**
 * The files whose text an edit that asks for confirmation (a reply preview) changes: the documents of its
 * TextDocumentEdits and the targets of its renames. VS Code applies text edits to editor buffers and leaves them
 * unsaved; the extension saves these before it answers the server, which then reads them from disk. Empty for an edit
 * without a needsConfirmation annotation (nothing else is saved on the server's behalf).
 */
export function confirmedEditUris(edit: LspWorkspaceEdit): string[] {
  const annotations = edit.changeAnnotations ?? {};
  if (!Object.values(annotations).some((a) => a?.needsConfirmation === true)) {
    return [];
  }
  const uris: string[] = [];
  for (const change of edit.documentChanges ?? []) {
    if (typeof change !== 'object' || change === null) {
      continue;
    }
    const c = change as { kind?: string; textDocument?: { uri?: unknown }; newUri?: unknown };
    const uri = c.kind === 'rename' ? c.newUri : c.kind === undefined ? c.textDocument?.uri : undefined;
    if (typeof uri === 'string' && !uris.includes(uri)) {
      uris.push(uri);
    }
  }
  return uris;
}
