/**
 * Workspace trust. The extension declares `untrustedWorkspaces: "limited"`: in Restricted Mode the server still
 * checks files (diagnostics, quick fixes, highlighting), but nothing runs. The server is told through the
 * `trusted` setting (it then offers no run lens or action and refuses runs); the client refuses again here, before
 * a run request leaves the editor, so an old lens or a command typed in the palette cannot start one either.
 */

/** Server commands that start nothing and stay available in Restricted Mode. Everything else is refused. */
export const ALLOWED_WHEN_UNTRUSTED: ReadonlySet<string> = new Set(['heredoc-lsp.cancelRun', 'heredoc-lsp.showRunOutput']);

export const UNTRUSTED_RUN_MESSAGE =
  'heredoc-lsp does not run anything in Restricted Mode. Trust this workspace to run commands, scripts and replies.';

export function isAllowed(command: string, trusted: boolean): boolean {
  return trusted || ALLOWED_WHEN_UNTRUSTED.has(command);
}

export interface TrustDeps {
  isTrusted(): boolean;
  warn(message: string): void;
}

type Next = (command: string, args: unknown[]) => unknown;

/** The `middleware.executeCommand` of the language client. */
export function executeCommandGate(deps: TrustDeps) {
  return (command: string, args: unknown[], next: Next): unknown => {
    if (!isAllowed(command, deps.isTrusted())) {
      deps.warn(UNTRUSTED_RUN_MESSAGE);
      return { status: 'refused', message: UNTRUSTED_RUN_MESSAGE };
    }
    return next(command, args);
  };
}
