"""Running a command: the read of inputs by either engine, the analysis, the value types."""
