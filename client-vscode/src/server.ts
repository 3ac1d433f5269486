/**
 * How the bundled server is started: `<python> -m heredoc_lsp lsp` with PYTHONPATH set to the extension's
 * `bundled/libs` (heredoc_lsp and its pure-Python dependencies), so only a Python >= 3.10 is needed.
 */
import * as path from 'node:path';

export interface ServerLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * The launch for `python` with the libraries in `libsDir`. PYTHONPATH is replaced, not extended: a user's
 * PYTHONPATH holding another pygls or heredoc_lsp must not shadow the bundled ones. PYTHONNOUSERSITE keeps the
 * user site-packages out for the same reason.
 *
 * The working directory is `libsDir`, never the workspace: `python -m` puts the working directory first on
 * sys.path, so a `pygls.py` in an (untrusted) workspace would otherwise run on start-up. PYTHONSAFEPATH says the
 * same to Python 3.11+. The server learns the workspace from the initialize request, not from its cwd.
 */
export function serverLaunch(python: string, libsDir: string, baseEnv: NodeJS.ProcessEnv, logLevel = 'info'): ServerLaunch {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  env.PYTHONPATH = path.resolve(libsDir);
  env.PYTHONNOUSERSITE = '1';
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  env.PYTHONSAFEPATH = '1';
  const libs = path.resolve(libsDir);
  return { command: python, args: ['-m', 'heredoc_lsp', 'lsp', '--log-level', logLevel], cwd: libs, env };
}
