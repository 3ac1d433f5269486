/** What the status bar item says about the server. */

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed' | 'no-python';

export interface StatusInput {
  state: ServerState;
  trusted: boolean;
  /** e.g. "Python 3.11.2 (/usr/bin/python3)" */
  python?: string;
  /** Why it failed, for the tooltip. */
  detail?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** A theme colour id for the item's background, for states that need attention. */
  background?: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground';
}

export function statusView(input: StatusInput): StatusView {
  const lines: string[] = [];
  let text: string;
  let background: StatusView['background'];
  switch (input.state) {
    case 'starting':
      text = '$(loading~spin) heredoc-lsp';
      lines.push('heredoc-lsp: starting the language server');
      break;
    case 'running':
      text = input.trusted ? '$(check) heredoc-lsp' : '$(shield) heredoc-lsp';
      lines.push('heredoc-lsp: the language server is running');
      break;
    case 'stopped':
      text = '$(debug-stop) heredoc-lsp';
      lines.push('heredoc-lsp: the language server is stopped');
      background = 'statusBarItem.warningBackground';
      break;
    case 'failed':
      text = '$(error) heredoc-lsp';
      lines.push('heredoc-lsp: the language server failed');
      background = 'statusBarItem.errorBackground';
      break;
    case 'no-python':
      text = '$(error) heredoc-lsp: no Python';
      lines.push('heredoc-lsp: no Python 3.10+ interpreter found');
      background = 'statusBarItem.errorBackground';
      break;
  }
  if (input.detail) {
    lines.push(input.detail);
  }
  if (input.python) {
    lines.push(input.python);
  }
  if (!input.trusted) {
    lines.push('Restricted Mode: checks only, running is off');
  }
  lines.push('Click to show the output');
  return { text, tooltip: lines.join('\n'), background };
}
