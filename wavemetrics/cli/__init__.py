"""The command line: the entry point, the click commands, the status line."""
