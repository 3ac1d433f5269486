import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import {
  AGENT_CATEGORY,
  AGENT_COMMANDS,
  AgentDeps,
  confirmedEditUris,
  copyOutbox,
  fileName,
  NO_FOLDER_MESSAGE,
  NO_REPLY_MESSAGE,
  newSession,
  pasteReply,
  previewReply,
  SERVER_NEW_SESSION,
  SERVER_OUTBOX_TEXT,
  SERVER_PASTE_REPLY,
  SERVER_PREVIEW_REPLY,
  SERVER_UNDO_REPLY,
  TASK_PROMPT,
  undoReply,
} from '../src/agent';
import { executeCommandGate, UNTRUSTED_RUN_MESSAGE } from '../src/trust';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const FOLDER = 'file:///w';
const OUTBOX = 'file:///w/outbox/5f3a9c1e_seq0001.txt';
const REPLY = 'file:///w/inbox/reply_0001.txt';

/** Fake editor: records what the glue asked of it; the server answers from `answers`. */
class Editor implements AgentDeps {
  calls: [string, Record<string, string>][] = [];
  clipboard = '';
  infos: string[] = [];
  warnings: string[] = [];
  statuses: string[] = [];
  constructor(
    readonly answers: Record<string, unknown> = {},
    public folder: string | undefined = FOLDER,
    public active: string | undefined = undefined,
    public task: string | undefined = 'add a flag',
  ) {}
  async execute(command: string, arg: Record<string, string>): Promise<unknown> {
    this.calls.push([command, arg]);
    return this.answers[command];
  }
  sessionUri() {
    return this.folder;
  }
  activeUri() {
    return this.active;
  }
  prompts: string[] = [];
  async askTask(prompt: string) {
    this.prompts.push(prompt);
    return this.task;
  }
  async readClipboard() {
    return this.clipboard;
  }
  async writeClipboard(text: string) {
    this.clipboard = text;
  }
  info(message: string) {
    this.infos.push(message);
  }
  warn(message: string) {
    this.warnings.push(message);
  }
  status(message: string) {
    this.statuses.push(message);
  }
}

const REFUSED = { status: 'refused', message: 'heredoc-lsp: that is the prompt, not the reply' };

describe('the agent commands in the manifest', () => {
  it('declares each palette command with its title under the Heredoc category', () => {
    const declared = manifest.contributes.commands.filter((c: { category: string }) => c.category === AGENT_CATEGORY);
    assert.deepEqual(
      declared.map((c: { command: string; title: string }) => [c.command, c.title]),
      Object.values(AGENT_COMMANDS).map((c) => [c.id, c.title]),
    );
    assert.ok(manifest.activationEvents.every((e: string) => !e.startsWith('onCommand:')), 'commands activate implicitly');
  });
});

describe('New agent session', () => {
  it('sends the task and the workspace, and says what comes next', async () => {
    const editor = new Editor({
      'heredoc-lsp.newSession': { status: 'started', session: '5f3a9c1e', outbox: OUTBOX, chars: 120 },
    });
    const result = await newSession(editor);
    assert.equal(result?.status, 'started');
    assert.deepEqual(editor.prompts, [TASK_PROMPT]);
    assert.deepEqual(editor.calls, [['heredoc-lsp.newSession', { uri: FOLDER, task: 'add a flag' }]]);
    assert.deepEqual(editor.statuses, ['Session 5f3a9c1e: next, Heredoc: Copy outbox for the LLM']);
    // The server shows the outbox and says the session started; a refusal is the server's to show too.
    assert.deepEqual([editor.infos, editor.warnings], [[], []]);
    const refused = new Editor({ 'heredoc-lsp.newSession': REFUSED });
    assert.deepEqual(await newSession(refused), REFUSED);
    assert.deepEqual([refused.infos, refused.warnings, refused.statuses], [[], [], []]);
  });

  it('asks the server nothing when the input box is dismissed or empty, or no folder is open', async () => {
    for (const task of [undefined, '  \t']) {
      const editor = new Editor();
      editor.task = task;
      assert.equal(await newSession(editor), undefined);
      assert.deepEqual(editor.calls, []);
    }
    const noFolder = new Editor();
    noFolder.folder = undefined;
    assert.equal(await newSession(noFolder), undefined);
    assert.deepEqual(noFolder.prompts, []);
    assert.deepEqual(noFolder.warnings, [NO_FOLDER_MESSAGE]);
  });
});

describe('Copy outbox for the LLM', () => {
  it('puts the whole outbox text on the clipboard and says how long it is', async () => {
    const text = '=== HEADER ===\nSession: 5f3a9c1e\r\nTask: é\n';
    const editor = new Editor({ 'heredoc-lsp.outboxText': { status: 'ok', outbox: OUTBOX, text, chars: 42, lines: 3 } });
    editor.active = OUTBOX;
    editor.folder = OUTBOX;
    await copyOutbox(editor);
    assert.deepEqual(editor.calls, [['heredoc-lsp.outboxText', { uri: OUTBOX }]]);
    assert.equal(editor.clipboard, text);
    assert.deepEqual(editor.statuses, ['Copied 5f3a9c1e_seq0001.txt for the LLM (42 characters)']);
    assert.deepEqual(editor.infos, ['Copied 5f3a9c1e_seq0001.txt for the LLM (42 characters)']);
  });

  it('leaves the clipboard alone when the server refuses', async () => {
    const editor = new Editor({ 'heredoc-lsp.outboxText': { status: 'refused', message: 'no agent session here' } });
    editor.clipboard = 'what the user copied';
    assert.equal((await copyOutbox(editor))?.status, 'refused');
    assert.equal(editor.clipboard, 'what the user copied');
    assert.deepEqual([editor.infos, editor.statuses], [[], []]);
  });
});

describe('Paste reply', () => {
  it('sends the clipboard text to the server, which writes the inbox file', async () => {
    const editor = new Editor({ 'heredoc-lsp.pasteReply': { status: 'pasted', reply: REPLY } });
    editor.clipboard = '[MESSAGE]\nhi\n[/MESSAGE]\n[DONE]\n';
    await pasteReply(editor);
    assert.deepEqual(editor.calls, [['heredoc-lsp.pasteReply', { uri: FOLDER, text: '[MESSAGE]\nhi\n[/MESSAGE]\n[DONE]\n' }]]);
    assert.deepEqual(editor.statuses, ['Pasted the reply into reply_0001.txt']);
  });

  it('passes a refusal through without a message of its own (the server shows it)', async () => {
    const editor = new Editor({ 'heredoc-lsp.pasteReply': REFUSED });
    editor.clipboard = '=== HEADER ===\n';
    assert.deepEqual(await pasteReply(editor), REFUSED);
    assert.deepEqual([editor.infos, editor.warnings, editor.statuses], [[], [], []]);
  });
});

describe('Preview reply and Undo last reply', () => {
  it('preview names the active reply; a discarded preview is said in the status bar', async () => {
    const editor = new Editor({ 'heredoc-lsp.previewReply': { status: 'declined', files: [], commands: [] } });
    editor.active = REPLY;
    await previewReply(editor);
    assert.deepEqual(editor.calls, [['heredoc-lsp.previewReply', { uri: REPLY }]]);
    assert.deepEqual(editor.statuses, ['Reply not applied: the preview was discarded']);
    const none = new Editor();
    assert.equal(await previewReply(none), undefined);
    assert.deepEqual(none.warnings, [NO_REPLY_MESSAGE]);
    assert.deepEqual(none.calls, []);
  });

  it('undo names the active file in the workspace (the reply or the next outbox), else the folder', async () => {
    const editor = new Editor({ 'heredoc-lsp.undoReply': { status: 'undone' } });
    editor.folder = OUTBOX;
    assert.equal((await undoReply(editor))?.status, 'undone');
    editor.folder = FOLDER;
    await undoReply(editor);
    editor.folder = undefined;
    assert.equal(await undoReply(editor), undefined);
    assert.deepEqual(editor.calls, [
      ['heredoc-lsp.undoReply', { uri: OUTBOX }],
      ['heredoc-lsp.undoReply', { uri: FOLDER }],
    ]);
    assert.deepEqual(editor.warnings, [NO_FOLDER_MESSAGE]);
  });
});

describe('Restricted Mode', () => {
  it('refuses every agent command before it reaches the server', () => {
    for (const command of [SERVER_NEW_SESSION, SERVER_OUTBOX_TEXT, SERVER_PASTE_REPLY, SERVER_PREVIEW_REPLY, SERVER_UNDO_REPLY]) {
      const warnings: string[] = [];
      const sent: string[] = [];
      const gate = executeCommandGate({ isTrusted: () => false, warn: (m) => warnings.push(m) });
      const result = gate(command, [{ uri: FOLDER, text: 'x' }], (c) => sent.push(c));
      assert.deepEqual(result, { status: 'refused', message: UNTRUSTED_RUN_MESSAGE }, command);
      assert.deepEqual([warnings, sent], [[UNTRUSTED_RUN_MESSAGE], []]);
    }
  });
});

describe('confirmedEditUris', () => {
  const confirm = { b1: { label: 'WRITE_FILE b.txt', needsConfirmation: true } };
  it('lists the documents whose text an accepted reply preview changed', () => {
    const edit = {
      changeAnnotations: confirm,
      documentChanges: [
        { kind: 'create', uri: 'file:///w/new.txt', annotationId: 'b1' },
        { textDocument: { uri: 'file:///w/new.txt', version: null }, edits: [] },
        { textDocument: { uri: 'file:///w/b%20c.txt', version: 3 }, edits: [] },
        { kind: 'rename', oldUri: 'file:///w/old.txt', newUri: 'file:///w/moved.txt' },
        { kind: 'delete', uri: 'file:///w/gone.txt' },
      ],
    };
    assert.deepEqual(confirmedEditUris(edit), ['file:///w/new.txt', 'file:///w/b%20c.txt', 'file:///w/moved.txt']);
  });

  it('is empty for an edit that needs no confirmation', () => {
    const changes = [{ textDocument: { uri: 'file:///w/a.cli', version: 1 }, edits: [] }];
    assert.deepEqual(confirmedEditUris({ documentChanges: changes }), []);
    assert.deepEqual(confirmedEditUris({ documentChanges: changes, changeAnnotations: { x: { needsConfirmation: false } } }), []);
  });
});

describe('fileName', () => {
  it('is the decoded last segment of a URI', () => {
    assert.equal(fileName(OUTBOX), '5f3a9c1e_seq0001.txt');
    assert.equal(fileName('file:///w/inbox/my%20reply.txt'), 'my reply.txt');
    assert.equal(fileName('file:///w/'), 'w');
  });
});
