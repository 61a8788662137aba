"""The metric core: observations -> waves -> buckets and savings -> summary (pure;
mutation-gated)."""
