"""Inputs: files, folders, stdin and gzip, the folder walk and agents' default locations."""
