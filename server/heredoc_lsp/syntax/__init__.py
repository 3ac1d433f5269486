"""Pure parsers: text in, an immutable tree with ranges and diagnostics out. No I/O, no LSP imports."""
