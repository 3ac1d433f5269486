"""What can be run in a document and what came of it, without any LSP: run targets (:mod:`.targets`), results
and runs in progress (:mod:`.state`), and the titles and diagnostics that show them (:mod:`.view`)."""
