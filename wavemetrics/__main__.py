"""``python -m wavemetrics`` runs the command line."""

from wavemetrics.cli import main

main()
