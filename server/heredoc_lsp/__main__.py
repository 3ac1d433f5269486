"""`python -m heredoc_lsp`."""

from heredoc_lsp.cli.main import main

raise SystemExit(main())
