"""The ``agent-evals`` command line: thin commands that parse, call one library function, map errors."""
