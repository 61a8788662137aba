"""``python -m wavemetrics`` runs the command line."""

from wavemetrics._entry import main

main()
