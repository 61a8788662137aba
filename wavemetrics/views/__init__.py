"""What users read: the report, CSV, groups and slices, compare, the axis, the timeline, notes."""
