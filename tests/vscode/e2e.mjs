#!/usr/bin/env node
// End-to-end test of the heredoc-lsp extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) driven
// through headless Chromium with playwright-core.
//
//   node e2e.mjs --vsix PATH --artifacts DIR [--checks NAME,NAME...]
//
// Installs the .vsix into a fresh user-data/extensions directory, writes a small workspace, starts code-server on
// a free port in its own process group, opens the workspace in Chromium and checks, one by one:
//   diagnostics  an unclosed heredoc shows a red squiggle, and the Problems panel lists the server's message
//   grammar      the heredoc marker carries the grammar's scope (token inspector) and the theme's keyword colour
//   languages    inbox/reply.txt is Agent Inbox with its RUN_COMMAND body in VS Code's shell grammar; the outbox file
//                is Agent Outbox with its section marker scoped
//   bodies       a Python body is in VS Code's Python grammar and its syntax error is squiggled (body_syntax)
//   run-lens     the "▶ Run" lens is shown; clicking it, then "Run" in the confirmation, shows the result in the lens
//   quick-fix    the "Switch to UUID-prefixed delimiters" quick fix rewrites the delimiters (in the editor and on disk)
//   lints        lints.cli shows one warning of each .cli lint in the Problems panel (early_close, shell_syntax,
//                orphan_option, bashism, background_stdin), and the early_close quick fix renames the marker
//   agent-loop   the copy-paste agent loop from the palette (docs/vscode.md): New agent session opens the first
//                outbox, Copy outbox puts exactly its text on the browser's clipboard, Paste reply writes the clipboard
//                into inbox/ and opens it with its Apply / Preview lenses, Preview reply shows VS Code's Refactor
//                Preview with a box per file and writes nothing; two files ticked and applied are on disk, the
//                unticked one untouched, and the next outbox opens; the outbox pasted back as a reply is refused,
//                nothing written; Undo last reply (from the outbox) removes the new files
//   restricted-mode  a second code-server with workspace trust on opens an untrusted copy of the workspace:
//                Restricted Mode, the squiggle still shows, the status item shows a shield, and no run lens appears
// --checks runs only the named checks (the set-up always runs). Each check is independent (a failure is recorded
// and the next check runs), takes a screenshot into the artifacts directory, and the results go to
// DIR/results.json: {checks: {name: {ok, detail, ms}}, total_ms}.
// The process exits 0 when every check passed, 1 otherwise, 2 when the set-up itself failed.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CODE_SERVER = path.join(HERE, 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const LINTS_TEXT =
  'cat > notes.md <<EOF\nSome text\nEOF\nmore text meant for the file\nEOF\n' +
  'echo "$(cat <<\'MSG\'\nhello\nMSG\n)"\n' +
  'gh issue create --body-file - <<BODY\nbody\nBODY\n  --title "x"\n' +
  'cat <<LOG &> all.log\nx\nLOG\n' +
  'cat <<OUT > out.txt &\ny\nOUT\n';
const LINT_CODES = ['early_close', 'shell_syntax', 'orphan_option', 'bashism', 'background_stdin'];
const EARLY_CLOSE_FIX = "Rename the marker 'EOF' to 'EOF_1'";
const UNCLOSED_MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file";
const RUN_OUTPUT = 'hello from heredoc-lsp';
// Dark Modern (VS Code's default theme) colours keyword.control #C586C0 and entity.name.function #DCDCAA.
const KEYWORD_CONTROL_RGB = 'rgb(197, 134, 192)';
const FUNCTION_RGB = 'rgb(220, 220, 170)';
const AGENT_TASK = 'Write the plan and a flag module';
const TODO_TEXT = 'plan\nwrite the flag\ntest it\n';
// Two new files and an edit of an existing one: three files, three checkboxes in the refactoring preview.
const AGENT_REPLY =
  'I add the plan and a flag module, and tick the todo list.\n' +
  '[CREATE_FILE path="notes/plan.md"]\n# Plan\n\n- add the flag\n[/CREATE_FILE]\n' +
  '[CREATE_FILE path="src/flag.py"]\nVERBOSE = False\n[/CREATE_FILE]\n' +
  '[EDIT_FILE path="todo.txt" start_line="2" end_line="2"]\nwrite the flag (done)\n[/EDIT_FILE]\n';
// CREATE_FILE writes its body exactly, without a final newline (docs/formats.md).
const AGENT_FILES = {
  'notes/plan.md': '# Plan\n\n- add the flag',
  'src/flag.py': 'VERBOSE = False',
  'todo.txt': 'plan\nwrite the flag (done)\ntest it\n',
};
// The files ticked in the preview; todo.txt is left unchecked, so its EDIT_FILE is not applied.
const AGENT_TICKED = ['notes/plan.md', 'src/flag.py'];
const AGENT_APPLIED = { ...AGENT_FILES, 'todo.txt': TODO_TEXT };

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    args[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  if (!args.vsix || !args.artifacts) {
    console.error('usage: node e2e.mjs --vsix PATH --artifacts DIR');
    process.exit(2);
  }
  return args;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function writeWorkspace(dir) {
  fs.mkdirSync(dir, { recursive: true });
  // Line 2 opens a heredoc that is never closed.
  fs.writeFileSync(path.join(dir, 'broken.cli'), 'echo first\ncat <<EOF\nnever closed\n');
  fs.writeFileSync(path.join(dir, 'run.cli'), `# a command with a heredoc\ncat <<EOF\n${RUN_OUTPUT}\nEOF\n`);
  // One of each lint of docs/checking.md (the same text as tests/editors/test_editor_neovim.py's).
  fs.writeFileSync(path.join(dir, 'lints.cli'), LINTS_TEXT);
  fs.writeFileSync(path.join(dir, 'body.cli'), "python3 - <<'PY'\nimport os\nprint(os.getcwd(\nPY\n");
  fs.writeFileSync(path.join(dir, 'todo.txt'), TODO_TEXT);
  // A repeated ---TITLE--- delimiter: the UUID-delimiter quick fix resolves it.
  fs.writeFileSync(
    path.join(dir, 'params.cli'),
    'tracker note <<EOF\n---TITLE---\nFirst title\n---BODY---\nThe body quotes a delimiter:\n---TITLE---\nEOF\n',
  );
  // Found by their folder and name patterns (**/inbox/*.txt, **/outbox/*_seqNNNN.txt), not by extension.
  fs.mkdirSync(path.join(dir, 'inbox'));
  fs.writeFileSync(path.join(dir, 'inbox', 'reply.txt'), 'Checking the tests.\n[RUN_COMMAND]\necho "$HOME"\n[/RUN_COMMAND]\n');
  fs.mkdirSync(path.join(dir, 'outbox'));
  fs.writeFileSync(
    path.join(dir, 'outbox', '5f3a9c1e_seq0002.txt'),
    '=== HEADER ===\nSession: 5f3a9c1e\nSequence: 2\nTask: test\n\n=== PROTOCOL ===\nrules\n\n=== CONTEXT ===\n' +
      "## Previous Command Results\n[OK] RUN_COMMAND: Ran 'pytest' (exit code 0)\n\n=== PROMPT ===\nContinue.\n",
  );
}

function writeUserSettings(userDataDir, { trust }) {
  const dir = path.join(userDataDir, 'User');
  fs.mkdirSync(dir, { recursive: true });
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.colorTheme': 'Default Dark Modern',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    // The second session turns workspace trust on and opens an untrusted folder straight in Restricted Mode.
    'security.workspace.trust.enabled': trust,
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
    // Colours then come from the grammar alone (the server also offers semantic tokens).
    'editor.semanticHighlighting.enabled': false,
    'editor.minimap.enabled': false,
    'editor.fontSize': 15,
    'files.autoSave': 'off',
    'window.commandCenter': false,
  };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}

class Run {
  constructor(artifacts, only) {
    this.artifacts = artifacts;
    this.checks = {};
    this.page = undefined;
    /** The checks to run (--checks); undefined: all of them. */
    this.only = only;
  }

  wants(name) {
    return this.only === undefined || this.only.includes(name);
  }

  log(message) {
    const t = ((Date.now() - START) / 1000).toFixed(1);
    console.log(`[${t}s] ${message}`);
  }

  async check(name, fn) {
    if (!this.wants(name)) {
      return;
    }
    const t0 = Date.now();
    this.log(`check ${name}`);
    try {
      const detail = await fn();
      this.checks[name] = { ok: true, detail: detail ?? '', ms: Date.now() - t0 };
      this.log(`  ok: ${detail ?? ''}`);
    } catch (err) {
      this.checks[name] = { ok: false, detail: String(err?.stack || err), ms: Date.now() - t0 };
      this.log(`  FAILED: ${err?.message || err}`);
    }
    await this.shot(name);
  }

  async shot(name) {
    if (!this.page) {
      return;
    }
    try {
      await this.page.screenshot({ path: path.join(this.artifacts, `${name}.png`) });
    } catch (err) {
      this.log(`  (screenshot ${name} failed: ${err?.message || err})`);
    }
  }
}

const START = Date.now();

async function waitFor(fn, what, timeoutMs = 20000, stepMs = 200) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) {
        return last;
      }
    } catch (err) {
      last = err;
    }
    await sleep(stepMs);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} (last: ${String(last)})`);
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
}

/** Open a workspace file from the Explorer, as a person would (double click: a kept tab, not a preview). */
async function openFile(page, name) {
  await page.keyboard.press('Escape');
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
  await row.first().dblclick();
  await page.locator(`.tab.active[aria-label*="${name}"]`).first().waitFor({ timeout: 10000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 10000 });
}

/** Open `folder/name` from the Explorer, expanding the folder first. */
async function openNested(page, folder, name) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
  if ((await row.count()) === 0) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: folder }).first().click();
  }
  await openFile(page, name);
}

/** The textmate scopes and language the token inspector shows at line:column. */
async function inspectToken(page, line, column) {
  await goToLine(page, line, column);
  await runCommand(page, 'Developer: Inspect Editor Tokens and Scopes');
  const widget = page.locator('.token-inspect-widget');
  await widget.waitFor({ timeout: 10000 });
  // innerText keeps the widget's rows apart: one scope or field per line.
  return widget.innerText();
}

/** Move the cursor of the active editor (quick open's `:line:column`). */
async function goToLine(page, line, column) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`:${line}:${column}`);
  await sleep(300);
  await page.keyboard.press('Enter');
  await waitFor(
    async () => ((await page.locator('.statusbar').textContent()) ?? '').includes(`Ln ${line}, Col ${column}`),
    `the cursor at ${line}:${column}`,
    5000,
  );
}

/** The text of the visible editor's lines, in order. */
async function editorLines(page) {
  return page.evaluate(() => {
    const editor = document.querySelector('.editor-instance .monaco-editor') || document.querySelector('.monaco-editor');
    const lines = [...editor.querySelectorAll('.view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
  });
}

/** A running code-server and the Chromium page showing it; `close()` stops both. */
class Session {
  constructor(run, { tmp, env, userData, extDir, serverLog, artifacts, trust }) {
    Object.assign(this, { run, tmp, env, userData, extDir, serverLog, artifacts, trust });
  }

  async open(workspace) {
    const port = await freePort();
    const flags = ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-getting-started-override', '--disable-proxy', '--user-data-dir', this.userData, '--extensions-dir', this.extDir];
    if (!this.trust) {
      // Workspace trust is on: the folder opens in Restricted Mode (startupPrompt "never" in the user settings).
    } else {
      flags.push('--disable-workspace-trust');
    }
    this.server = spawn(CODE_SERVER, [...flags, workspace], {
      env: this.env,
      detached: true,
      stdio: ['ignore', this.serverLog, this.serverLog],
    });
    this.run.log(`code-server pid ${this.server.pid} on port ${port}${this.trust ? '' : ' (workspace trust on)'}`);
    // For the test wrapper: the process group to kill should this driver itself be killed.
    fs.writeFileSync(path.join(this.artifacts, 'code-server.pid'), String(this.server.pid));
    await waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      return res?.ok;
    }, 'code-server /healthz', 60000, 250);
    this.context = await chromium.launchPersistentContext(path.join(this.tmp, `chromium-${port}`), {
      executablePath: CHROMIUM,
      // Chromium keeps its crash database under $XDG_CONFIG_HOME (else ~/.config): keep it in the temporary tree.
      env: { ...this.env, HOME: path.join(this.tmp, 'home') },
      headless: true,
      viewport: { width: 1400, height: 860 },
      // The agent loop's Copy outbox / Paste reply go through the browser's clipboard.
      permissions: ['clipboard-read', 'clipboard-write'],
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    this.run.page = page;
    page.setDefaultTimeout(20000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'run.cli' }).first().waitFor({ timeout: 30000 });
    this.run.log('workbench loaded');
    return page;
  }

  async close() {
    await this.context?.close().catch(() => undefined);
    this.context = undefined;
    const pid = this.server?.pid;
    this.server = undefined;
    if (pid) {
      for (const signal of ['SIGTERM', 'SIGKILL']) {
        try {
          process.kill(-pid, signal);
        } catch {
          // already gone
        }
        await sleep(500);
      }
    }
    fs.rmSync(path.join(this.artifacts, 'code-server.pid'), { force: true });
  }
}

/** The label of the active editor tab. */
async function activeTab(page) {
  return (await page.locator('.tab.active').first().getAttribute('aria-label').catch(() => '')) ?? '';
}

/** Every file under `dir` (relative paths, sorted), to see that nothing was written. */
function listTree(dir) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** The copy-paste agent loop, keyboard only, from the command palette (docs/vscode.md, "The agent loop"). */
async function agentLoop(run, page, workspace) {
  const clipboard = {
    read: () => page.evaluate(() => navigator.clipboard.readText()),
    write: (text) => page.evaluate((t) => navigator.clipboard.writeText(t), text),
  };
  const toast = (text) => page.locator('.notification-toast', { hasText: text }).first();
  // The extension is loaded once its status item shows for a .cli file (when this check runs first, too).
  await openFile(page, 'run.cli');
  await page.locator('.statusbar-item', { hasText: 'heredoc-lsp' }).locator('.codicon-check').first().waitFor({ timeout: 30000 });
  await runCommand(page, 'View: Close All Editors');
  // An earlier check's unsaved edit (lints' quick fix) asks before closing: its file is not this check's business.
  const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
  if (await dontSave.first().waitFor({ timeout: 2000 }).then(() => true, () => false)) {
    await dontSave.first().click();
  }
  await waitFor(async () => (await page.locator('.tab').count()) === 0, 'every editor closed', 10000);
  await runCommand(page, 'Notifications: Clear All Notifications');

  // New agent session: the task in an input box; the server writes the first outbox and opens it.
  await runCommand(page, 'Heredoc: New agent session');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(AGENT_TASK);
  await page.keyboard.press('Enter');
  const first = await waitFor(
    async () => /\b([0-9a-f]{8})_seq0001\.txt\b/.exec(await activeTab(page))?.[0],
    'the first outbox to open',
    30000,
  );
  const session = first.slice(0, 8);
  const outboxText = fs.readFileSync(path.join(workspace, 'outbox', first), 'utf8');
  if (!outboxText.includes(AGENT_TASK)) {
    throw new Error(`${first} lacks the task: ${outboxText.slice(0, 400)}`);
  }

  // Copy outbox: exactly the file's text on the clipboard, and how long it is.
  await runCommand(page, 'Heredoc: Copy outbox for the LLM');
  const copiedMessage = `Copied ${first} for the LLM (${[...outboxText].length} characters)`;
  await toast(copiedMessage).waitFor({ timeout: 15000 });
  const copied = await clipboard.read();
  if (copied !== outboxText) {
    throw new Error(`the clipboard holds ${JSON.stringify(copied.slice(0, 200))}..., not ${first}`);
  }

  // The LLM's answer on the clipboard; Paste reply writes it into inbox/ and opens it.
  await clipboard.write(AGENT_REPLY);
  const inboxBefore = new Set(fs.readdirSync(path.join(workspace, 'inbox')));
  await runCommand(page, 'Heredoc: Paste reply');
  const reply = await waitFor(
    () =>
      fs
        .readdirSync(path.join(workspace, 'inbox'))
        .find((n) => !inboxBefore.has(n) && n.endsWith('.txt') && fs.readFileSync(path.join(workspace, 'inbox', n), 'utf8') === AGENT_REPLY),
    'the pasted reply in inbox/',
    15000,
  );
  await page.locator(`.tab.active[aria-label*="${reply}"]`).first().waitFor({ timeout: 15000 });
  await page.locator('.statusbar-item', { hasText: 'Agent Inbox' }).first().waitFor({ timeout: 10000 });
  // The reply's lenses: apply it straight away, or preview it first.
  for (const title of [/^▶ Apply reply$/, /^Preview reply$/]) {
    await page.locator('.contentWidgets .codelens-decoration a', { hasText: title }).first().waitFor({ timeout: 30000 });
  }

  // Preview reply: VS Code's Refactor Preview with a checkbox per file. Changes that need confirmation start
  // unchecked (VS Code's rule): nothing is written until the user ticks files and presses Apply.
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'Heredoc: Preview reply');
  await page.locator('.bulk-edit-panel').first().waitFor({ timeout: 30000 });
  const names = Object.keys(AGENT_FILES).map((f) => path.basename(f));
  const previewRows = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.bulk-edit-panel .monaco-list-row')].map((row) => ({
        text: row.textContent.replace(/\u00a0/g, ' '),
        level: row.getAttribute('aria-level'),
        checked: row.querySelector('input.edit-checkbox')?.checked ?? null,
      })),
    );
  const fileRows = (rows) => names.map((n) => rows.find((x) => x.level === '1' && x.text.includes(n)));
  const offered = await waitFor(async () => {
    const rows = await previewRows();
    return fileRows(rows).every((r) => r && r.checked !== null) ? rows : undefined;
  }, 'a row with a checkbox per file in the Refactor Preview', 20000);
  const written = Object.keys(AGENT_FILES).filter((f) => f !== 'todo.txt' && fs.existsSync(path.join(workspace, f)));
  if (written.length || fs.readFileSync(path.join(workspace, 'todo.txt'), 'utf8') !== TODO_TEXT) {
    throw new Error(`the preview wrote files before Apply: ${JSON.stringify(written)}`);
  }
  const tick = AGENT_TICKED.map((f) => path.basename(f));
  for (const name of tick) {
    const row = page.locator('.bulk-edit-panel .monaco-list-row[aria-level="1"]', { hasText: name }).first();
    if (!(await row.locator('input.edit-checkbox').isChecked())) {
      await row.locator('input.edit-checkbox').click();
    }
  }
  const ticked = await waitFor(async () => {
    const rows = await previewRows();
    return fileRows(rows).every((r, i) => r?.checked === tick.includes(names[i])) ? rows : undefined;
  }, `${tick.join(' and ')} ticked, the rest not`, 10000);
  await sleep(500);
  await run.shot('agent-preview');

  // Apply: the ticked files on disk (saved, not only in editor buffers), the unticked one unchanged, then the next
  // outbox opens and reports the unticked block skipped.
  await page.locator('.bulk-edit-panel .monaco-button', { hasText: /^Apply$/ }).first().click();
  const onDisk = () =>
    Object.fromEntries(
      Object.keys(AGENT_FILES).map((f) => [f, fs.existsSync(path.join(workspace, f)) ? fs.readFileSync(path.join(workspace, f), 'utf8') : null]),
    );
  await waitFor(() => JSON.stringify(onDisk()) === JSON.stringify(AGENT_APPLIED), "the ticked files on disk", 30000).catch(
    (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(onDisk())}, expected ${JSON.stringify(AGENT_APPLIED)}`);
    },
  );
  const second = `${session}_seq0002.txt`;
  await page.locator(`.tab.active[aria-label*="${second}"]`).first().waitFor({ timeout: 30000 });
  const results = fs
    .readFileSync(path.join(workspace, 'outbox', second), 'utf8')
    .split('\n')
    .filter((l) => /^\[(OK|FAILED|SKIPPED)\]/.test(l));
  if (results.length !== 3 || !results[2].startsWith('[SKIPPED] EDIT_FILE') || results.slice(0, 2).some((l) => !l.startsWith('[OK] CREATE_FILE'))) {
    throw new Error(`${second} reports ${JSON.stringify(results)}`);
  }

  // The mistake: the outbox copied and pasted back as the reply. Refused, nothing written.
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'Heredoc: Copy outbox for the LLM');
  await toast(`Copied ${second} for the LLM`).waitFor({ timeout: 15000 });
  const treeBefore = listTree(workspace);
  await runCommand(page, 'Heredoc: Paste reply');
  const refusal = toast('the pasted text is not a reply');
  await refusal.waitFor({ timeout: 15000 });
  const refusedText = ((await refusal.locator('.notification-list-item-message').textContent()) ?? '').trim();
  await sleep(1000);
  const treeAfter = listTree(workspace);
  if (JSON.stringify(treeAfter) !== JSON.stringify(treeBefore)) {
    throw new Error(`the refused paste wrote ${JSON.stringify(treeAfter.filter((f) => !treeBefore.includes(f)))}`);
  }
  // Undo last reply, from the outbox that followed it: the new files go, todo.txt is as it was.
  await runCommand(page, 'Heredoc: Undo last reply');
  const undone = { 'notes/plan.md': null, 'src/flag.py': null, 'todo.txt': TODO_TEXT };
  await waitFor(() => JSON.stringify(onDisk()) === JSON.stringify(undone), 'the undo on disk', 20000).catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(onDisk())}, expected ${JSON.stringify(undone)}`);
  });
  return (
    `session ${session}: ${first} copied (${copied.length} chars), ${reply} pasted, preview rows offered ` +
    `${JSON.stringify(fileRows(offered).map((r) => `${r.checked ? '☑' : '☐'} ${r.text.trim()}`))}, ticked ` +
    `${JSON.stringify(fileRows(ticked).map((r) => `${r.checked ? '☑' : '☐'} ${r.text.trim()}`))}, applied, ${second} opened ` +
    `with ${JSON.stringify(results)}; ` +
    `the outbox pasted back: "${refusedText}"; Undo last reply restored the files`
  );
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const artifacts = path.resolve(args.artifacts);
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heredoc-lsp-e2e-'));
  const userData = path.join(tmp, 'user-data');
  const extDir = path.join(tmp, 'extensions');
  const workspace = path.join(tmp, 'workspace');
  const untrusted = path.join(tmp, 'untrusted');
  const xdg = path.join(tmp, 'xdg');
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(xdg, 'config'),
    XDG_DATA_HOME: path.join(xdg, 'data'),
    XDG_CACHE_HOME: path.join(xdg, 'cache'),
    XDG_STATE_HOME: path.join(xdg, 'state'),
  };
  writeWorkspace(workspace);
  writeWorkspace(untrusted);
  writeUserSettings(userData, { trust: false });
  const run = new Run(artifacts, args.checks?.split(','));
  let session;
  let exitCode = 2;
  const serverLog = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
  const common = { tmp, env, userData, extDir, serverLog, artifacts };
  try {
    run.log(`installing ${path.basename(args.vsix)}`);
    const install = spawnSync(
      CODE_SERVER,
      ['--install-extension', path.resolve(args.vsix), '--force', '--user-data-dir', userData, '--extensions-dir', extDir],
      { env, encoding: 'utf8', timeout: 120000 },
    );
    fs.writeSync(serverLog, `${install.stdout}\n${install.stderr}\n`);
    if (install.status !== 0 || !/heredoc-lsp/.test(install.stdout + install.stderr)) {
      throw new Error(`--install-extension failed (${install.status}): ${install.stdout}${install.stderr}`);
    }

    session = new Session(run, { ...common, trust: true });
    const page = await session.open(workspace);

    await run.check('diagnostics', async () => {
      await openFile(page, 'broken.cli');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
      await page.keyboard.press('Control+Shift+M');
      const row = page.locator('.markers-panel .monaco-list-row', { hasText: UNCLOSED_MESSAGE });
      await row.first().waitFor({ timeout: 15000 });
      const text = (await row.first().textContent()) ?? '';
      if (!text.includes('unclosed_heredoc')) {
        throw new Error(`the Problems entry lacks the code: ${text}`);
      }
      return `squiggle shown; Problems: ${text.trim()}`;
    });

    await run.check('grammar', async () => {
      await openFile(page, 'broken.cli');
      // The marker `EOF` on line 2 (`cat <<EOF`) and the command word `cat`.
      const colours = await waitFor(
        () =>
          page.evaluate(() => {
            const lines = [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')];
            const line = lines.find((l) => l.textContent.replace(/\u00a0/g, ' ') === 'cat <<EOF');
            if (!line) return undefined;
            const spans = [...line.querySelectorAll('span > span')];
            const colourOf = (text) => {
              const s = spans.find((x) => x.textContent === text);
              return s ? getComputedStyle(s).color : undefined;
            };
            const out = { marker: colourOf('EOF'), command: colourOf('cat') };
            return out.marker && out.command ? out : undefined;
          }),
        'the tokens of line 2',
      );
      if (colours.marker !== KEYWORD_CONTROL_RGB) {
        throw new Error(`marker colour ${colours.marker}, expected keyword.control ${KEYWORD_CONTROL_RGB}`);
      }
      if (colours.command !== FUNCTION_RGB) {
        throw new Error(`command colour ${colours.command}, expected entity.name.function ${FUNCTION_RGB}`);
      }
      await goToLine(page, 2, 8);
      await runCommand(page, 'Developer: Inspect Editor Tokens and Scopes');
      const widget = page.locator('.token-inspect-widget');
      await widget.waitFor({ timeout: 10000 });
      const text = (await widget.textContent()) ?? '';
      if (!text.includes('keyword.control.heredoc-token.cli-script')) {
        throw new Error(`token inspector shows: ${text}`);
      }
      await run.shot('grammar-inspector');
      await page.keyboard.press('Escape');
      return `marker ${colours.marker} (keyword.control.heredoc-token.cli-script), command ${colours.command}`;
    });

    await run.check('languages', async () => {
      // inbox/reply.txt is an agent-inbox file; the RUN_COMMAND body is handed to VS Code's own shell grammar.
      await openNested(page, 'inbox', 'reply.txt');
      await page.locator('.statusbar-item', { hasText: 'Agent Inbox' }).first().waitFor({ timeout: 10000 });
      const tag = await inspectToken(page, 2, 3);
      await page.keyboard.press('Escape');
      if (!tag.includes('entity.name.tag.agent-inbox')) {
        throw new Error(`[RUN_COMMAND] tag: ${tag}`);
      }
      const body = await inspectToken(page, 3, 2);
      await run.shot('languages-inbox');
      await page.keyboard.press('Escape');
      const bodyLines = body.split('\n').map((l) => l.trim());
      const shellScope = bodyLines.find((l) => /^[a-z.-]+\.shell$/.test(l));
      if (!/language\s*shellscript/.test(body) || !bodyLines.includes('meta.embedded.block.shellscript') || !shellScope) {
        throw new Error(`RUN_COMMAND body: ${body}`);
      }
      // outbox/<id>_seq0002.txt is an agent-outbox file.
      await openNested(page, 'outbox', '5f3a9c1e_seq0002.txt');
      await page.locator('.statusbar-item', { hasText: 'Agent Outbox' }).first().waitFor({ timeout: 10000 });
      const marker = await inspectToken(page, 1, 6);
      await page.keyboard.press('Escape');
      if (!marker.includes('entity.name.section.agent-outbox')) {
        throw new Error(`=== HEADER ===: ${marker}`);
      }
      return `inbox/reply.txt: Agent Inbox, RUN_COMMAND body in shellscript (${shellScope}); outbox: Agent Outbox, section marker scoped`;
    });

    await run.check('bodies', async () => {
      // A Python body (docs/bodies.md): coloured by VS Code's Python grammar, its syntax error squiggled at the
      // column of the unclosed parenthesis (the inner one of `print(os.getcwd(`), with Python's own message.
      await openFile(page, 'body.cli');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
      const body = await inspectToken(page, 2, 2);
      await page.keyboard.press('Escape');
      if (!/language\s*python/.test(body) || !body.includes('meta.embedded.block.python')) {
        throw new Error(`the body is not Python: ${body}`);
      }
      await page.keyboard.press('Control+Shift+M');
      const row = page.locator('.markers-panel .monaco-list-row', { hasText: "python: '(' was never closed" });
      await row.first().waitFor({ timeout: 15000 });
      const text = (await row.first().textContent()) ?? '';
      if (!text.includes('body_syntax') || !text.includes('[Ln 3, Col 16]')) {
        throw new Error(`the Problems entry: ${text}`);
      }
      await run.shot('bodies');
      return `Python body (meta.embedded.block.python), Problems: ${text.trim()}`;
    });

    await run.check('run-lens', async () => {
      await openFile(page, 'run.cli');
      // The command's own lens (line 2), not "▶ Run script" at the top.
      const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: /^▶ Run$/ });
      await lens.first().waitFor({ timeout: 30000 });
      await lens.first().click();
      // The server asks before the first run of a document (executor.confirm = "always").
      const confirm = page.locator('.notification-toast .monaco-button', { hasText: /^Run$/ });
      await confirm.first().waitFor({ timeout: 15000 });
      await run.shot('run-lens-confirm');
      await confirm.first().click();
      const result = page.locator('.contentWidgets .codelens-decoration a', { hasText: /^✓ exit 0/ });
      await result.first().waitFor({ timeout: 30000 });
      const title = ((await result.first().textContent()) ?? '').trim();
      await run.shot('run-lens-result');
      // Clicking the result opens the run's log, which holds the command's output.
      await result.first().click();
      const log = await waitFor(async () => {
        const label = (await page.locator('.tab.active').first().getAttribute('aria-label')) ?? '';
        if (label.includes('run.cli')) return undefined;
        const lines = await editorLines(page);
        return lines.some((l) => l.includes(RUN_OUTPUT)) ? { label, lines } : undefined;
      }, 'the run log with the output', 15000);
      return `lens after the run: "${title}"; log "${log.label}" shows "${RUN_OUTPUT}"`;
    });

    await run.check('quick-fix', async () => {
      await openFile(page, 'params.cli');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
      await goToLine(page, 6, 4);
      await page.keyboard.press('Control+.');
      const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Switch to UUID-prefixed delimiters' });
      await item.first().waitFor({ timeout: 15000 });
      await run.shot('quick-fix-menu');
      // A pointer-blocking layer covers the menu in code-server: choose with the keyboard.
      await waitFor(async () => {
        const focused = page.locator('.action-widget .monaco-list-row.focused');
        if (((await focused.textContent().catch(() => '')) ?? '').includes('Switch to UUID-prefixed delimiters')) {
          return true;
        }
        await page.keyboard.press('ArrowDown');
        return false;
      }, 'the UUID quick fix to be selected', 5000, 150);
      await page.keyboard.press('Enter');
      const lines = await waitFor(async () => {
        const l = await editorLines(page);
        return l.some((x) => /^---\(UUID:[0-9a-f]{8}\)TITLE---$/.test(x)) ? l : undefined;
      }, 'UUID-prefixed delimiters in the editor', 15000);
      const id = /^---\(UUID:([0-9a-f]{8})\)TITLE---$/.exec(lines.find((x) => x.includes('(UUID:')))[1];
      const expected = [
        'tracker note <<EOF',
        `---(UUID:${id})TITLE---`,
        'First title',
        `---(UUID:${id})BODY---`,
        'The body quotes a delimiter:',
        '---TITLE---',
        'EOF',
      ];
      if (JSON.stringify(lines.slice(0, 7)) !== JSON.stringify(expected)) {
        throw new Error(`editor text after the fix: ${JSON.stringify(lines)}`);
      }
      await page.keyboard.press('Control+S');
      const onDisk = await waitFor(() => {
        const t = fs.readFileSync(path.join(workspace, 'params.cli'), 'utf8');
        return t.includes('(UUID:') ? t : undefined;
      }, 'the saved file', 10000);
      if (onDisk !== `${expected.join('\n')}\n`) {
        throw new Error(`saved file: ${JSON.stringify(onDisk)}`);
      }
      await waitFor(async () => (await page.locator('.monaco-editor .squiggly-error').count()) === 0, 'the error squiggle to go', 15000);
      return `delimiters rewritten with UUID ${id}; the duplicate error is gone`;
    });

    await run.check('lints', async () => {
      await runCommand(page, 'View: Close All Editors');
      await openFile(page, 'lints.cli');
      await waitFor(
        async () => (await page.locator('.monaco-editor .squiggly-warning').count()) >= 6,
        'six warning squiggles',
        30000,
      );
      if (!(await page.locator('.markers-panel').first().isVisible().catch(() => false))) {
        await page.keyboard.press('Control+Shift+M');
      }
      const seen = [];
      for (const code of LINT_CODES) {
        const row = page.locator('.markers-panel .monaco-list-row', { hasText: code });
        await row.first().waitFor({ timeout: 15000 });
        seen.push(((await row.first().textContent()) ?? '').trim());
      }
      await run.shot('lints-problems');
      await goToLine(page, 5, 1);
      await page.keyboard.press('Control+.');
      const item = page.locator('.action-widget .monaco-list-row', { hasText: EARLY_CLOSE_FIX });
      await item.first().waitFor({ timeout: 15000 });
      await waitFor(async () => {
        const focused = page.locator('.action-widget .monaco-list-row.focused');
        if (((await focused.textContent().catch(() => '')) ?? '').includes(EARLY_CLOSE_FIX)) {
          return true;
        }
        await page.keyboard.press('ArrowDown');
        return false;
      }, 'the early_close quick fix to be selected', 5000, 150);
      await page.keyboard.press('Enter');
      const lines = await waitFor(async () => {
        const l = await editorLines(page);
        return l[0] === 'cat > notes.md <<EOF_1' ? l : undefined;
      }, 'the renamed marker in the editor', 15000);
      if (lines[4] !== 'EOF_1') {
        throw new Error(`editor text after the fix: ${JSON.stringify(lines)}`);
      }
      await waitFor(
        async () => (await page.locator('.markers-panel .monaco-list-row', { hasText: 'early_close' }).count()) === 0,
        'the early_close warning to go',
        15000,
      );
      return `Problems: ${JSON.stringify(seen)}; the early_close fix renamed the marker to EOF_1`;
    });

    // A picture of everything at once (for the README): run.cli with its result lens, broken.cli beside it with
    // its squiggle, and the Problems panel.
    if (run.only === undefined) {
      try {
        await openFile(page, 'run.cli');
        await page.keyboard.press('Control+\\');
        await openFile(page, 'broken.cli');
        await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 10000 });
        await sleep(1000);
        await run.shot('overview');
      } catch (err) {
        run.log(`(overview screenshot skipped: ${err?.message || err})`);
        await run.shot('overview-failure');
      }
    }

    await run.check('agent-loop', () => agentLoop(run, page, workspace));
    await session.close();

    // Restricted Mode: the same extension in an untrusted folder.
    writeUserSettings(userData, { trust: true });
    session = new Session(run, { ...common, trust: false });
    const restricted = run.wants('restricted-mode') ? await session.open(untrusted) : undefined;
    await run.check('restricted-mode', async () => {
      const banner = restricted.locator('.statusbar-item', { hasText: 'Restricted Mode' });
      await banner.first().waitFor({ timeout: 15000 });
      await openFile(restricted, 'broken.cli');
      await restricted.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30000 });
      const status = restricted.locator('.statusbar-item', { hasText: 'heredoc-lsp' });
      await status.locator('.codicon-shield').first().waitFor({ timeout: 10000 });
      await openFile(restricted, 'run.cli');
      // The server is running (the squiggle above came from it); give it time to answer the lens request.
      await sleep(3000);
      const lenses = await restricted.locator('.contentWidgets .codelens-decoration').allTextContents();
      if (lenses.some((t) => t.includes('▶'))) {
        throw new Error(`run lenses offered in Restricted Mode: ${JSON.stringify(lenses)}`);
      }
      return `Restricted Mode: diagnostics shown, status bar shield, no run lens (lenses: ${JSON.stringify(lenses)})`;
    });
    await session.close();
    exitCode = Object.values(run.checks).every((c) => c.ok) ? 0 : 1;
  } catch (err) {
    run.log(`set-up failed: ${err?.stack || err}`);
    await run.shot('setup-failure');
    run.checks.setup = { ok: false, detail: String(err?.stack || err), ms: 0 };
    exitCode = 2;
  } finally {
    await session?.close();
    fs.closeSync(serverLog);
    const total = Date.now() - START;
    fs.writeFileSync(path.join(artifacts, 'results.json'), JSON.stringify({ checks: run.checks, total_ms: total }, null, 2));
    run.log(`done in ${(total / 1000).toFixed(1)} s, exit ${exitCode}`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

main();
