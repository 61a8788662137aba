"""What repeat runs reuse: per-unit entries, whole outputs, the status line's live state."""
