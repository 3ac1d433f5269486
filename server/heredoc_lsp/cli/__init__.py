"""The command line: thin adapters over the core and the executor."""
