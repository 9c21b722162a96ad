"""Users' files read with located errors: YAML with line numbers, data rows, the repo config."""
