"""``python -m wavemetrics`` runs the command line."""

from wavemetrics.cli._entry import main

main()
