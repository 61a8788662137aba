"""Trace readers: inputs -> lanes fed into a sink, with every line accounted for.

One module per format, each exposing one
:class:`~wavemetrics.readers._protocol.TraceFormat` listed in
``readers/registry.py``, whose rows also say what each format can do (read
natively, keep a live state for the status line). :mod:`wavemetrics.readers.dispatch`
detects formats (``detect_input``), groups files into read units by the format's
``unit_key`` (``plan_units``) and reads a unit into an observation sink
(``read_unit``); it names no format and knows nothing of metrics. The pipeline
(``wavemetrics/run/pipeline.py``) owns the sink (``docs/formats.md``).

Nothing is defined or imported here: importing a module of this folder (the
registry, one reader) loads nothing else of it (start-up time).
"""
